/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Benchmark of the link simulator (core only): frames per second of the whole chain
 * (random bits, 802.16e LDPC n = 2304 encoding, interleaving, 16-QAM mapping, i.i.d.
 * Rayleigh 4x4 channel, AWGN, mtt detection, de-interleaving, layered min-sum with 10
 * iterations and early termination, counting) on the GPU beside the CPU reference on
 * all cores. The engines directly (no batch doubling): wall clock per run of F frames,
 * median of 5 after a warm-up run; the CPU once. Also the GPU without the code (frames
 * made and detected only), to show the decoder's share.
 *
 *   gpumimo_link_bench [--quick] [--frames F] [--detector mtt]
 */
#include "common/cli_numbers.h"
#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace gr::gpumimo::core;
using wall = std::chrono::steady_clock;

namespace {

struct row {
    std::string what;
    double snr;
    std::size_t frames;
    double seconds;
    link_counts counts;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

row measure(const std::string& what, const link_config& c, double snr, std::size_t frames, int repeats)
{
    auto setup = std::make_shared<const link_setup>(c);
    auto engine = c.backend == "cuda" ? make_link_engine_on_devices(setup) : make_cpu_link_engine(setup);
    const float n0 = setup->noise_variance(snr);
    row r{ what, snr, frames, 0, {} };
    if (repeats > 1)
        engine->run(7, 0, std::min<std::size_t>(frames, engine->default_max_batch()), n0); // warm-up
    std::vector<double> times;
    for (int i = 0; i < repeats; i++) {
        const auto t0 = wall::now();
        const link_counts k = engine->run(0, std::uint64_t(i) * frames, frames, n0);
        times.push_back(std::chrono::duration<double>(wall::now() - t0).count());
        r.counts += k;
    }
    r.seconds = median(times);
    return r;
}

void print(const row& r, int k)
{
    const double fps = r.frames / r.seconds;
    const double fer = r.counts.frames ? double(r.counts.frame_errors) / r.counts.frames : 0;
    const double iters = r.counts.frames ? double(r.counts.iterations) / r.counts.frames : 0;
    std::printf("| %-40s | %5.1f | %8zu | %9.4f | %11.0f | %9.1f | %8.2e | %5.2f |\n", r.what.c_str(),
                r.snr, r.frames, r.seconds, fps, fps * k / 1e6, fer, iters);
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    std::size_t frames = 0;
    std::string detector = "mtt";
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = std::size_t(gpumimo_cli::or_exit("gpumimo_link_bench", [&] { return gpumimo_cli::whole("--frames", argv[++i], 1, 1LL << 30); }));
        else if (!std::strcmp(argv[i], "--detector") && i + 1 < argc)
            detector = argv[++i];
        else {
            std::fprintf(stderr, "usage: gpumimo_link_bench [--quick] [--frames F] [--detector D]\n");
            return 2;
        }
    }
    if (!frames)
        frames = quick ? 16384 : 65536;
    try {
        link_config c;
        c.nt = c.nr = 4;
        c.mod = modulation::qam16;
        c.algo = parse_algorithm(detector);
        c.seed = 2026;
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        std::printf("gpumimo_link_bench: 4x4 16-QAM, %s, i.i.d. Rayleigh (new H every vector), "
                    "802.16e n = 2304 rate 1/2, layered min-sum 0.75, 10 iterations, early "
                    "termination; frames/s and information Mbit/s (1152 bits a frame)\n\n",
                    detector.c_str());
        std::printf("| %-40s | %5s | %8s | %9s | %11s | %9s | %8s | %5s |\n", "run", "SNR", "frames",
                    "s (med)", "frames/s", "Mbit/s", "FER", "iter");
        std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(42, '-').c_str(), std::string(7, '-').c_str(),
                    std::string(10, '-').c_str(), std::string(11, '-').c_str(), std::string(13, '-').c_str(),
                    std::string(11, '-').c_str(), std::string(10, '-').c_str(), std::string(7, '-').c_str());
        std::string why;
        const int gpus = cuda_device_count(&why);
        if (gpus > 0) {
            c.backend = "cuda";
            for (double snr : { 10.0, 16.0 })
                print(measure("GPU, whole chain (f32 detector)", c, snr, frames, 5), 1152);
            if (gpus >= 2) { // every GPU of the machine, each batch cut over them
                link_config all = c;
                for (int d = 0; d < gpus; d++)
                    all.devices.push_back(d);
                for (double snr : { 10.0, 16.0 })
                    print(measure("GPU, whole chain, " + std::to_string(gpus) + " GPUs", all, snr,
                                  std::size_t(gpus) * frames, 5), 1152);
            }
            link_config uncoded = c;
            uncoded.code = ldpc_code();
            print(measure("GPU, no code: frames + detection only", uncoded, 16.0, frames, 5), 2304);
        } else {
            std::printf("(no GPU: %s)\n", why.c_str());
        }
        c.backend = "cpu";
        c.threads = threads;
        const std::size_t cpu_frames = std::size_t(threads) * (quick ? 4 : 16);
        print(measure("CPU reference, " + std::to_string(threads) + " threads", c, 16.0, cpu_frames, 1), 1152);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpumimo_link_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
