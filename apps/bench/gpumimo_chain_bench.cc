/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What one frame costs each step of the chain of separate blocks (issue 27: mimo_chanest
 * then mimo_detector, the limit of `gpumimo_rx_rate --chain`): the core calls those
 * blocks make per frame, timed alone on one thread, lte20 4x4 16-QAM with 9 payload
 * symbols as gpumimo_rx_rate's. Median microseconds of 101 calls after 5 warm-up ones
 * (a batch's per frame); the GPU rows where a device is usable. The estimate_channel(s)
 * rows on the GPU smoothing engine are what mimo_chanest did before its chanest_engine
 * (the host engine still does their CPU rows), kept to compare with it.
 *
 *   gpumimo_chain_bench
 */
#include "bench_common.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <chrono>
#include <complex>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace gr::gpumimo::core;
using cf = std::complex<float>;

namespace {

double median_us(const std::function<void()>& step)
{
    for (int i = 0; i < 5; i++)
        step();
    std::vector<double> t;
    for (int i = 0; i < 101; i++) {
        const auto a = std::chrono::steady_clock::now();
        step();
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a)
                        .count());
    }
    return median(t);
}

void row(const char* block, const std::string& step, double us)
{
    std::printf("| %-13s | %-62s | %9.1f |\n", block, step.c_str(), us);
}

} // namespace

int main()
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const frame_format f = make_frame_format("lte20", 4, "16qam", 9);
    const int U = f.num.used_carriers, K = f.streams, R = 4, P = f.payload_symbols;
    const int S = f.symbols() - 1; // what mimo_chanest holds per antenna: pilots, payload
    std::mt19937 rng(7);
    std::normal_distribution<float> g(0.0f, 1.0f);
    // Each antenna's training (preamble and pilots) then payload, [rx][symbol][carrier].
    std::vector<cf> frame(std::size_t(R) * (1 + S) * U);
    for (auto& v : frame)
        v = { g(rng), g(rng) };
    std::vector<cf> training(std::size_t(R) * (1 + K) * U);
    for (int r = 0; r < R; r++)
        std::copy_n(frame.begin() + std::size_t(r) * (1 + S) * U, std::size_t(1 + K) * U,
                    training.begin() + std::size_t(r) * (1 + K) * U);
    std::string why;
    const bool gpu = cuda_device_count(&why) > 0;
    std::printf("gpumimo_chain_bench: per-frame steps of mimo_chanest and mimo_detector, "
                "lte20 (%d used carriers) 4x4 16-QAM, %d payload symbols; median us%s\n\n",
                U, P, gpu ? "" : (" (no GPU: " + why + ")").c_str());
    std::printf("| %-13s | %-62s | %9s |\n", "block", "step", "us/frame");
    std::printf("|%s|%s|%s|\n", std::string(15, '-').c_str(), std::string(64, '-').c_str(),
                std::string(11, '-').c_str());

    row("mimo_chanest", "all_usable over the frame (the host engine's check)",
        median_us([&] {
            volatile bool ok = all_usable(frame.data(), frame.size());
            (void)ok;
        }));
    const double n0_samples = double(preamble_empty_carriers(f.num).size()) * R;
    for (const char* backend : { "cpu", "cuda" }) {
        if (std::string(backend) == "cuda" && !gpu)
            continue;
        for (const auto method : { channel_estimator::ls, channel_estimator::lmmse }) {
            auto smoothing = make_smoothing_engine(f.num, method, R, K, n0_samples, backend);
            const std::string name = std::string("estimate_channel, ") +
                                     (method == channel_estimator::ls ? "ls" : "lmmse") +
                                     " smoothing on " + smoothing->backend();
            row("mimo_chanest", name, median_us([&] {
                    estimate_channel(f, training.data(), R, 0, *smoothing);
                }));
        }
        // 16 frames' estimates a call, their smoothing in one (on the CPU the same as
        // frame by frame, at 16 times the lmmse row's time: not run).
        if (std::string(backend) == "cpu")
            continue;
        const std::size_t batch = 16;
        auto smoothing = make_smoothing_engine(f.num, channel_estimator::lmmse, R, K, n0_samples,
                                               backend, 0, nullptr, batch);
        const std::vector<const cf*> frames(batch, training.data());
        std::vector<channel_estimate> estimates;
        row("mimo_chanest",
            std::string("estimate_channels, 16 frames a call, lmmse on ") + smoothing->backend() +
                " (per frame)",
            median_us([&] {
                estimate_channels(f, frames.data(), batch, R, 0, *smoothing, estimates);
            }) / batch);
    }
    // What mimo_chanest calls now: chanest_engine on a batch of 16 frames, back to back in
    // each antenna's stream as the block finds them, the payload derotated into another.
    // Its buffers pageable, page-locked (the blocks' registered stream buffers) or on the
    // device (a device-resident stream buffer from ofdm_fft and to mimo_detector).
    enum class buffers { pageable, page_locked, device };
    for (const buffers where : { buffers::pageable, buffers::page_locked, buffers::device }) {
        if (!gpu)
            break;
        const bool page_locked = where == buffers::page_locked;
        const std::size_t batch = 16, per_frame = std::size_t(1 + S) * U;
        std::vector<std::vector<cf>> stream(static_cast<std::size_t>(R)), out(static_cast<std::size_t>(R));
        std::vector<host_registration> locks;
        std::vector<device_bytes> on_device;
        std::vector<const cf*> in;
        std::vector<cf*> to;
        for (int r = 0; r < R; r++) {
            for (std::size_t fr = 0; fr < batch; fr++)
                stream[std::size_t(r)].insert(stream[std::size_t(r)].end(),
                                              frame.begin() + std::size_t(r) * per_frame,
                                              frame.begin() + std::size_t(r + 1) * per_frame);
            out[std::size_t(r)].resize(batch * std::size_t(P) * U);
            if (page_locked) {
                locks.emplace_back(stream[std::size_t(r)].data(), stream[std::size_t(r)].size() * sizeof(cf));
                locks.emplace_back(out[std::size_t(r)].data(), out[std::size_t(r)].size() * sizeof(cf));
            }
            in.push_back(stream[std::size_t(r)].data());
            to.push_back(out[std::size_t(r)].data());
            if (where == buffers::device) {
                const std::size_t in_bytes = stream[std::size_t(r)].size() * sizeof(cf);
                on_device.emplace_back(in_bytes, 0);
                copy_bytes(on_device.back().get(), in.back(), in_bytes);
                in.back() = reinterpret_cast<const cf*>(on_device.back().get());
                on_device.emplace_back(out[std::size_t(r)].size() * sizeof(cf), 0);
                to.back() = reinterpret_cast<cf*>(on_device.back().get());
            }
        }
        std::vector<std::size_t> at(batch);
        for (std::size_t fr = 0; fr < batch; fr++)
            at[fr] = fr * std::size_t(1 + S);
        auto engine = make_chanest_engine(f, channel_estimator::lmmse, R, "cuda", 0, nullptr, batch);
        chanest_batch cb;
        cb.in = in.data();
        cb.frame_at = at.data();
        cb.frames = batch;
        std::vector<unsigned char> usable(batch);
        cb.payload = to.data();
        cb.usable = usable.data();
        std::vector<channel_estimate> estimates;
        const char* where_text[] = { ", pageable", ", page-locked", ", on the device" };
        row("mimo_chanest",
            std::string("chanest_engine, 16 frames a call, lmmse on ") + engine->backend() +
                where_text[int(where)] + " (per frame)",
            median_us([&] { engine->estimate(cb, estimates); }) / batch);
    }
    auto ls = make_smoothing_engine(f.num, channel_estimator::ls, R, K, n0_samples, "cpu");
    const channel_estimate e = estimate_channel(f, training.data(), R, 0, *ls);
    phase_tracker tracker(f);
    std::vector<const cf*> payload(static_cast<std::size_t>(R));
    for (int r = 0; r < R; r++)
        payload[std::size_t(r)] = frame.data() + (std::size_t(r) * (1 + S) + 1 + K) * U;
    std::vector<cf> derotation(static_cast<std::size_t>(P));
    row("mimo_chanest", "phase_tracker::estimate",
        median_us([&] { tracker.estimate(e, payload.data(), derotation.data()); }));

    // mimo_detector: the payload run (the detector checks H and N0 itself, on the GPU
    // engine on the device).
    payload_run run;
    run.carriers = payload.data();
    run.symbols = std::size_t(P);
    run.h = e.h.data();
    run.noise = e.noise_eff.data();
    for (const char* backend : { "cpu", "cuda" }) {
        if (std::string(backend) == "cuda" && !gpu)
            continue;
        payload_detector_config c;
        c.num = f.num;
        c.detector.spec = detector_spec("mmse");
        c.detector.mod = f.mod;
        c.detector.nt = K;
        c.detector.nr = R;
        auto detector = make_payload_detector(c, backend);
        std::vector<float> llr(std::size_t(P) * detector->llrs_per_symbol());
        std::vector<std::uint8_t> erased(static_cast<std::size_t>(P));
        row("mimo_detector",
            std::string("payload_detector::detect, mmse, one frame on ") + detector->backend(),
            median_us([&] { detector->detect(run, llr.data(), erased.data()); }));
    }
    return 0;
}
