/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The receiver chain's rate on one GPU host, core only (the GPU machine has no GNU
 * Radio): `links` independent 4x4 links (an N310 each: 4 links x 4 antennas = 16
 * channels at 30.72 Msample/s, the APSM paper's testbed), each a continuous received
 * stream of LTE-like frames through a frequency-selective channel with carrier and
 * timing offsets. Two stages, as the GNU Radio chain has them:
 *   sync  - mimo_ofdm_sync's work on the CPU (core::search_step over its window,
 *           frame_corrector), one thread per link as a block has; and the same on the
 *           GPU (core::make_frame_sync_engine "cuda": samples in, corrected frames
 *           out, in the calls the block makes);
 *   fused - gpu_fused_receiver: synchronised frames in, LLRs out (FFT, estimates,
 *           detection on the device), one receiver and thread per link;
 * each alone, then all at once (links sync threads and links GPU threads together, the
 * way a flowgraph runs them). Rates are time samples per second per channel, medians;
 * the PCIe floor is the copy of the samples in and the LLRs out at the measured
 * ceilings. BER of the GPU's decisions shows the work is real.
 *
 *   gpumimo_rx_bench [--quick] [--links L] [--payload P] [--preset lte20]
 *                    [--algos mmse,kbest,...] [--seconds S] [--snr DB]
 */
#include "common/cli_numbers.h"
#include "bench_common.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

using namespace gr::gpumimo::core;
using cf = std::complex<float>;
using bench_clock = std::chrono::steady_clock;

namespace {

constexpr int kStreams = 4, kRx = 4;
constexpr double kTargetRate = 30.72e6;

struct options {
    bool quick = false;
    int links = 4;
    int payload = 9; // 1 + 4 + 9 = 14 symbols: one LTE subframe, 1 ms at 30.72 Msample/s
    std::string preset = "lte20";
    std::vector<std::string> algos = { "mmse", "zf", "kbest", "mtt", "nway", "psd" };
    double seconds = 3;
    double snr_db = 25;
};

// One link's received stream and what it carried.
struct link_signal {
    std::size_t len = 0;
    std::vector<cf> rx; // [antenna][len]
    std::vector<std::uint8_t> bits;
};

link_signal make_link(const frame_format& f, int frames, double snr_db, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> bit(0, 1);
    const std::size_t n = f.samples(), nb = f.payload_bits();
    link_signal s;
    s.bits.resize(frames * nb);
    for (auto& b : s.bits)
        b = std::uint8_t(bit(rng));
    // Frames back to back, then silence long enough for the search to see the last one
    // whole (a stream would go on).
    const std::size_t tail = 2 * std::size_t(f.num.fft_len + f.num.cp_lengths[0]);
    const std::size_t per_stream = frames * n + tail;
    std::vector<cf> tx(std::size_t(kStreams) * per_stream, cf(0, 0));
    for (int fr = 0; fr < frames; fr++) {
        const std::vector<cf> one = frame_samples(f, &s.bits[fr * nb]);
        for (int k = 0; k < kStreams; k++)
            std::copy(&one[k * n], &one[k * n] + n, &tx[k * per_stream + fr * n]);
    }
    channel_params cp;
    cp.tx = kStreams;
    cp.rx = kRx;
    cp.tap_powers = { 0.7, 0.2, 0.1 };
    cp.snr_db = snr_db;
    cp.cfo = 0.1 / f.num.fft_len;
    cp.delay = 300;
    cp.seed = rng();
    mimo_channel ch(cp);
    s.rx = ch.apply(tx.data(), per_stream);
    s.len = per_stream + cp.delay;
    return s;
}

// mimo_ofdm_sync's loop over a whole stream: returns the frames found, written to
// out[antenna] one after another.
std::size_t sync_stream(const frame_format& f,
                        frame_corrector& corrector,
                        const link_signal& s,
                        std::vector<std::vector<cf>>& out)
{
    const std::size_t n = f.samples();
    std::size_t at = 0, found = 0;
    std::vector<const cf*> from(kRx), window(kRx);
    std::vector<cf*> to(kRx);
    while (s.len - at >= n + search_margin(f)) {
        const std::size_t w = std::min(s.len - at, search_window(f));
        for (int a = 0; a < kRx; a++) // searched in place, as the block does
            window[a] = &s.rx[a * s.len + at];
        const frame_search_step step = search_step(f, window.data(), kRx, w);
        if (step.whole && (found + 1) * n <= out[0].size()) {
            for (int a = 0; a < kRx; a++) {
                from[a] = &s.rx[a * s.len + at + step.sync.start];
                to[a] = &out[a][found * n];
            }
            corrector.correct(from.data(), kRx, step.sync.cfo, to.data());
            found++;
        }
        at += step.advance;
    }
    return found;
}

// The same through a synchroniser engine, in the calls mimo_ofdm_sync makes: at most
// kSyncFrames frames and a window beyond them per call.
constexpr std::size_t kSyncFrames = 8;
std::size_t sync_max_input(const frame_format& f)
{
    return search_window(f) + (kSyncFrames - 1) * f.samples();
}
std::size_t sync_stream(const frame_format& f,
                        frame_sync_engine& engine,
                        const link_signal& s,
                        std::vector<std::vector<cf>>& out)
{
    const std::size_t n = f.samples(), max_input = sync_max_input(f);
    std::size_t at = 0, found = 0;
    std::vector<const cf*> in(kRx);
    std::vector<cf*> to(kRx);
    std::vector<synced_frame> frames(kSyncFrames);
    while (s.len - at >= n + search_margin(f)) {
        const std::size_t room = std::min(kSyncFrames, out[0].size() / n - found);
        if (room == 0)
            break;
        for (int a = 0; a < kRx; a++) {
            in[a] = &s.rx[a * s.len + at];
            to[a] = &out[a][found * n];
        }
        const sync_call_result r = engine.search(in.data(), at, std::min(s.len - at, max_input),
                                                 room, automatic_threshold, to.data(), frames.data());
        found += r.frames;
        at += r.consumed;
    }
    return found;
}

double seconds_since(bench_clock::time_point t0)
{
    return std::chrono::duration<double>(bench_clock::now() - t0).count();
}

std::string rate(double samples_per_s)
{
    char b[64];
    std::snprintf(b, sizeof b, "%8.1f  %5.2fx", samples_per_s / 1e6, samples_per_s / kTargetRate);
    return b;
}

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        if (a == "--quick") {
            o.quick = true;
            o.seconds = 1.5;
        } else if (a == "--links")
            o.links = int(gpumimo_cli::whole(a, next(), 1, 64));
        else if (a == "--payload")
            o.payload = int(gpumimo_cli::whole(a, next(), 1, 100000));
        else if (a == "--preset")
            o.preset = next();
        else if (a == "--seconds")
            o.seconds = gpumimo_cli::number(a, next(), 0.01, 1e6);
        else if (a == "--snr")
            o.snr_db = gpumimo_cli::number(a, next(), -100, 200);
        else if (a == "--algos") {
            o.algos.clear();
            std::stringstream ss(next());
            for (std::string t; std::getline(ss, t, ',');)
                o.algos.push_back(t);
        } else
            throw std::invalid_argument("unknown argument " + a);
    }
    if (o.links < 1 || o.links > 16)
        throw std::invalid_argument("--links must be 1..16");
    return o;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const options o = parse(argc, argv);
        const frame_format f = make_frame_format(o.preset, kStreams, "16qam", o.payload);
        const std::size_t n = f.samples(), bits = f.payload_bits();
        const int frames_per_link = o.quick ? 16 : 32; // distinct frames, looped
        const std::size_t batch = 64; // frames per GPU call (64 ms of signal at lte20)
        std::printf("receiver chain: %s, %dx%d 16-QAM, %d payload symbols (%zu samples, %zu bits "
                    "per frame), %d links x %d antennas = %d channels, SNR %.0f dB\n",
                    o.preset.c_str(), kStreams, kRx, o.payload, n, bits, o.links, kRx,
                    o.links * kRx, o.snr_db);
        std::printf("target: %.2f Msample/s per channel; rates below: Msample/s per channel "
                    "and x target (medians)\n\n",
                    kTargetRate / 1e6);

        std::vector<link_signal> links;
        for (int l = 0; l < o.links; l++)
            links.push_back(make_link(f, frames_per_link, o.snr_db, 1000 + l));

        // Stage 1 alone: sync of link 0 in one thread.
        std::vector<std::vector<std::vector<cf>>> synced(
            o.links, std::vector<std::vector<cf>>(kRx, std::vector<cf>(frames_per_link * n)));
        std::vector<double> t_sync;
        for (int rep = 0; rep < 5; rep++) {
            frame_corrector corr(f);
            const auto t0 = bench_clock::now();
            const std::size_t found = sync_stream(f, corr, links[0], synced[0]);
            t_sync.push_back(seconds_since(t0));
            if (found != std::size_t(frames_per_link))
                throw std::runtime_error("sync found " + std::to_string(found) + " of " +
                                         std::to_string(frames_per_link) + " frames");
        }
        for (int l = 1; l < o.links; l++) {
            frame_corrector corr(f);
            sync_stream(f, corr, links[l], synced[l]);
        }
        const double sync_alone = double(links[0].len) / median(t_sync);
        std::printf("%-44s %s\n", "sync alone (CPU, 1 thread, 4 antennas)", rate(sync_alone).c_str());
        // The synchroniser on the GPU: one engine per link, as one block per link has.
        std::vector<std::unique_ptr<frame_sync_engine>> gpu_sync;
        for (int l = 0; l < o.links; l++)
            gpu_sync.push_back(make_frame_sync_engine(f, kRx, sync_max_input(f), kSyncFrames, "cuda"));
        {
            std::vector<std::vector<cf>> out(kRx, std::vector<cf>(frames_per_link * n));
            std::vector<double> t;
            for (int rep = 0; rep < 6; rep++) {
                const auto t0 = bench_clock::now();
                const std::size_t found = sync_stream(f, *gpu_sync[0], links[0], out);
                if (rep) // the first call pays for the device's first touch
                    t.push_back(seconds_since(t0));
                if (found != std::size_t(frames_per_link))
                    throw std::runtime_error("GPU sync found " + std::to_string(found) + " of " +
                                             std::to_string(frames_per_link) + " frames");
            }
            std::printf("%-44s %s\n", "sync alone (GPU engine, 1 link, 4 antennas)",
                        rate(double(links[0].len) / median(t)).c_str());
        }

        // The GPU's input: each link's synchronised frames repeated to a batch.
        std::vector<std::vector<std::vector<cf>>> gpu_in(
            o.links, std::vector<std::vector<cf>>(kRx, std::vector<cf>(batch * n)));
        for (int l = 0; l < o.links; l++)
            for (int a = 0; a < kRx; a++)
                for (std::size_t b = 0; b < batch; b++)
                    std::copy(&synced[l][a][(b % frames_per_link) * n],
                              &synced[l][a][(b % frames_per_link) * n] + n, &gpu_in[l][a][b * n]);
        auto pointers = [&](int l) {
            std::vector<const cf*> p;
            for (int a = 0; a < kRx; a++)
                p.push_back(gpu_in[l][a].data());
            return p;
        };

        const ceilings c = measure_ceilings();
        const double in_bytes = double(kRx) * n * sizeof(cf), out_bytes = double(bits) * sizeof(float);
        // One link's samples in and LLRs out at the ceilings, shared by all links.
        const double pcie_frames = 1.0 / (in_bytes / (c.h2d * 1e9) + out_bytes / (c.d2h * 1e9));
        std::printf("%-44s %s   (H2D %.1f GB/s, D2H %.1f GB/s, all %d links)\n",
                    "PCIe floor: samples in, float LLRs out",
                    rate(pcie_frames * n / o.links).c_str(), c.h2d, c.d2h, o.links);

        std::printf("\n%-10s %-22s %-22s %-22s %-16s %s\n", "detector", "fused, 1 link alone",
                    "fused, all links", "sync, all links", "chain", "BER");
        for (const std::string& name : o.algos) {
            fused_receiver_config cfg;
            cfg.frame = f;
            cfg.rx = kRx;
            cfg.algo = parse_algorithm(name);
            std::vector<std::unique_ptr<gpu_fused_receiver>> rx;
            for (int l = 0; l < o.links; l++)
                rx.push_back(std::make_unique<gpu_fused_receiver>(cfg));
            std::vector<std::vector<float>> llr(o.links, std::vector<float>(batch * bits));

            // One link alone, after a warm-up call.
            rx[0]->process(pointers(0).data(), batch, llr[0].data());
            std::vector<double> t_one;
            for (int rep = 0; rep < (o.quick ? 5 : 11); rep++) {
                const auto t0 = bench_clock::now();
                rx[0]->process(pointers(0).data(), batch, llr[0].data());
                t_one.push_back(seconds_since(t0));
            }
            const double one = double(batch * n) / median(t_one);
            std::size_t errors = 0;
            for (std::size_t b = 0; b < batch; b++)
                for (std::size_t i = 0; i < bits; i++)
                    errors += (llr[0][b * bits + i] > 0) !=
                              (links[0].bits[(b % frames_per_link) * bits + i] == 1);
            const double ber = double(errors) / double(batch * bits);

            // Everything at once: links GPU threads and links sync threads.
            // with_sync: 0 none, 1 the CPU synchroniser, 2 the GPU one.
            auto concurrent = [&](int with_sync, double& gpu_rate, double& sync_rate) {
                std::atomic<bool> stop{ false };
                std::vector<std::size_t> gpu_frames(o.links, 0), sync_samples(o.links, 0);
                std::vector<std::thread> threads;
                std::vector<std::exception_ptr> errors_seen(2 * o.links);
                const auto t0 = bench_clock::now();
                for (int l = 0; l < o.links; l++) {
                    threads.emplace_back([&, l] {
                        try {
                            while (!stop) {
                                rx[l]->process(pointers(l).data(), batch, llr[l].data());
                                gpu_frames[l] += batch;
                            }
                        } catch (...) {
                            errors_seen[l] = std::current_exception();
                        }
                    });
                    if (with_sync)
                        threads.emplace_back([&, l] {
                            try {
                                frame_corrector corr(f);
                                auto out = std::vector<std::vector<cf>>(
                                    kRx, std::vector<cf>(frames_per_link * n));
                                while (!stop) {
                                    if (with_sync == 1)
                                        sync_stream(f, corr, links[l], out);
                                    else
                                        sync_stream(f, *gpu_sync[l], links[l], out);
                                    sync_samples[l] += links[l].len;
                                }
                            } catch (...) {
                                errors_seen[o.links + l] = std::current_exception();
                            }
                        });
                }
                std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
                stop = true;
                for (auto& t : threads)
                    t.join();
                const double elapsed = seconds_since(t0);
                for (auto& e : errors_seen)
                    if (e)
                        std::rethrow_exception(e);
                std::size_t fsum = 0, ssum = 0;
                for (int l = 0; l < o.links; l++) {
                    fsum += gpu_frames[l];
                    ssum += sync_samples[l];
                }
                gpu_rate = double(fsum) * n / o.links / elapsed;
                sync_rate = double(ssum) / o.links / elapsed;
            };
            double gpu_all = 0, unused = 0, gpu_chain = 0, sync_chain = 0, gpu_chain2 = 0,
                   gpu_sync_chain = 0;
            concurrent(0, gpu_all, unused);
            concurrent(1, gpu_chain, sync_chain);
            concurrent(2, gpu_chain2, gpu_sync_chain);
            const double chain = std::min(gpu_chain, sync_chain);
            const double chain2 = std::min(gpu_chain2, gpu_sync_chain);
            std::printf("%-10s %-22s %-22s %-22s %-16s %.2e\n", name.c_str(), rate(one).c_str(),
                        rate(gpu_all).c_str(), rate(sync_chain).c_str(),
                        (rate(chain) + (chain == sync_chain ? " sync" : " gpu")).c_str(), ber);
            std::printf("%-10s (all at once: the GPU stage %s)\n", "", rate(gpu_chain).c_str());
            std::printf("%-10s GPU sync: %-22s chain %s (the fused stage %s)\n", "",
                        rate(gpu_sync_chain).c_str(),
                        (rate(chain2) + (chain2 == gpu_sync_chain ? " sync" : " gpu")).c_str(),
                        rate(gpu_chain2).c_str());
        }
        { // Decoding in the receiver: samples in, information bits out (process_decoded).
            fused_receiver_config cfg;
            cfg.frame = f;
            cfg.rx = kRx;
            cfg.algo = algorithm::mmse;
            cfg.code = "wimax_2304";
            gpu_fused_receiver rx(cfg);
            std::vector<std::uint8_t> info(batch * rx.info_bits_per_frame());
            fused_decode_report rep;
            rx.process_decoded(pointers(0).data(), batch, info.data(), &rep); // warm-up
            std::vector<double> t;
            for (int r = 0; r < (o.quick ? 5 : 11); r++) {
                const auto t0 = bench_clock::now();
                rx.process_decoded(pointers(0).data(), batch, info.data(), &rep);
                t.push_back(seconds_since(t0));
            }
            std::printf("%-10s %-22s (mmse, fused with decoding, 1 link alone: %s, %zu codewords "
                        "a frame, mean %.1f iterations; the payload is random bits, not "
                        "codewords, so nearly every codeword runs all 10)\n",
                        "decoded", rate(double(batch * n) / median(t)).c_str(),
                        cfg.code.c_str(), rep.codewords / batch,
                        rep.codewords ? double(rep.iterations) / double(rep.codewords) : 0.0);
        }
        std::printf("\nfused: gpu_fused_receiver host to host (pinned staging inside), %zu frames "
                    "per call; all links: one receiver and thread per link at once; chain: "
                    "sync and GPU threads of every link at once, the slower stage named.\n",
                    batch);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gpumimo_rx_bench: " << e.what() << "\n";
        return 1;
    }
}
