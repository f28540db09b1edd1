/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_apsm_bench: APSM training and detection of all users, the CPU reference and
 * the GPU side by side in one run, on an over-the-air recording of
 * examples/recordings/apsm-ota (default: the 16-QAM time file, 6 users, 16 antennas, 685 training and
 * 3,840 data symbols), or on a random mixture of the same size when none is given.
 * GPU figures are medians of 21 runs after a warm-up: kernel-only (CUDA events) and
 * host to host (wall clock, from and to page-locked host memory; detection also
 * streamed: 16 calls submitted, then finish(), per call); CPU figures are
 * medians of --cpu-runs runs, all users one after another. Also the floor of detection
 * host to host (a 4-byte memset launched and waited for, its input up, its input up and
 * output down, nothing else) and whether the GPU's
 * decisions equal the reference's. Core only.
 */
#include "common/cli_numbers.h"
#include "bench_common.h"
#include "common/device_memory.cuh"

#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>
#include <gnuradio/gpumimo/core/apsm/gpu_apsm.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

using namespace gr::gpumimo::core;
using cf = std::complex<float>;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
        .count();
}

// A recording-sized random problem: 16-QAM users through a random channel plus noise.
apsm_recording synthetic(int antennas, int users, std::size_t train, std::size_t data)
{
    std::mt19937_64 rng(2026);
    std::normal_distribution<float> g(0.0f, 1.0f);
    apsm_recording r;
    r.mod = modulation::qam16;
    r.antennas = antennas;
    r.training_symbols = train;
    r.data_symbols = data;
    const constellation c(r.mod);
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    std::vector<cf> h(antennas * users);
    for (auto& v : h)
        v = { g(rng), g(rng) };
    auto make = [&](std::size_t n, std::vector<cf>& rx, std::vector<std::vector<cf>>& sent) {
        sent.assign(users, std::vector<cf>(n));
        for (auto& s : sent)
            for (auto& v : s)
                v = cf(c.point(pick(rng)));
        rx.assign(n * antennas, cf(0, 0));
        for (std::size_t t = 0; t < n; t++)
            for (int m = 0; m < antennas; m++) {
                cf acc(0.1f * g(rng), 0.1f * g(rng));
                for (int u = 0; u < users; u++)
                    acc += h[m * users + u] * sent[u][t];
                rx[t * antennas + m] = acc;
            }
    };
    make(train, r.rx_training, r.sent_training);
    make(data, r.rx_data, r.sent_data);
    for (int u = 0; u < users; u++)
        r.user_slots.push_back(u);
    return r;
}

void bench(const apsm_recording& rec, const apsm_params& p, const char* name, int cpu_runs)
{
    const int K = rec.users(), M = rec.antennas;
    const std::size_t nt = rec.training_symbols, nd = rec.data_symbols;
    const constellation c(rec.mod);
    constexpr int runs = 21;

    // CPU reference: every user one after another.
    std::vector<apsm_filter> ref;
    std::vector<double> cpu_train, cpu_detect;
    std::vector<cf> ref_soft(K * nd);
    for (int r = 0; r < cpu_runs; r++) {
        ref.clear();
        auto t0 = std::chrono::steady_clock::now();
        for (int u = 0; u < K; u++)
            ref.push_back(apsm_train(p, rec.rx_training.data(), nt, M, rec.sent_training[u].data()));
        cpu_train.push_back(ms_since(t0));
        t0 = std::chrono::steady_clock::now();
        for (int u = 0; u < K; u++)
            apsm_detect(ref[u], rec.rx_data.data(), nd, &ref_soft[u * nd]);
        cpu_detect.push_back(ms_since(t0));
    }

    // GPU: inputs and outputs in page-locked host memory, as a pipeline would have them.
    gr::gpumimo::cuda::pinned_buffer<cf> rx_train(nt * M), sent(K * nt), rx_data(nd * M),
        soft(K * nd);
    std::copy(rec.rx_training.begin(), rec.rx_training.end(), rx_train.get());
    for (int u = 0; u < K; u++)
        std::copy(rec.sent_training[u].begin(), rec.sent_training[u].end(), sent.get() + u * nt);
    std::copy(rec.rx_data.begin(), rec.rx_data.end(), rx_data.get());

    gpu_apsm_trainer trainer(p, M, K, nt);
    std::vector<apsm_filter> filters = trainer.train(rx_train.get(), nt, sent.get());
    std::vector<double> train_kernel, train_total, gram_ms, steps_ms, residual_ms;
    for (int r = 0; r < runs; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        trainer.train(rx_train.get(), nt, sent.get(), filters); // storage reused, as a receiver would
        train_total.push_back(ms_since(t0));
        train_kernel.push_back(trainer.last_kernel_ms());
        gram_ms.push_back(trainer.last_stage_ms().gram);
        steps_ms.push_back(trainer.last_stage_ms().steps);
        residual_ms.push_back(trainer.last_stage_ms().residual);
    }
    gpu_apsm_detector detector(M, K, filters[0].entries(), nd);
    detector.set_filters(filters);
    detector.detect(rx_data.get(), nd, soft.get());
    std::vector<double> detect_kernel, detect_total;
    for (int r = 0; r < runs; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        detector.detect(rx_data.get(), nd, soft.get());
        detect_total.push_back(ms_since(t0));
        detect_kernel.push_back(detector.last_kernel_ms());
    }

    // Streamed: 16 calls submitted one after another, as a receiver hands over block
    // after block, each into its own output, then finish(): the time per call, host to
    // host. One call's copies overlap another's kernel.
    constexpr int streamed_calls = 16;
    gr::gpumimo::cuda::pinned_buffer<cf> streamed_soft(streamed_calls * K * nd);
    const double streamed_us = 1e6 / streamed_calls * wall_median(runs, [&] {
        for (int c = 0; c < streamed_calls; c++)
            detector.submit(rx_data.get(), nd, streamed_soft.get() + c * K * nd);
        detector.finish();
    });
    // The host's own cost of one call: a submit() whose stream is free, alone.
    std::vector<double> submit_host;
    for (int r = 0; r < runs; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        detector.submit(rx_data.get(), nd, streamed_soft.get());
        submit_host.push_back(ms_since(t0));
        detector.finish();
    }

    // The floor of detection host to host: a 4-byte memset launched and waited for (what
    // any call to the GPU pays), its input up alone, and its input up and output down,
    // one stream (microseconds).
    double round_trip_us, input_up_us, copy_floor_us;
    {
        cf *d_in, *d_out;
        check(cudaMalloc(&d_in, nd * M * sizeof(cf)), "cudaMalloc");
        check(cudaMalloc(&d_out, K * nd * sizeof(cf)), "cudaMalloc");
        auto input_up = [&] {
            check(cudaMemcpyAsync(d_in, rx_data.get(), nd * M * sizeof(cf), cudaMemcpyHostToDevice),
                  "cudaMemcpyAsync");
        };
        auto wait = [] { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); };
        round_trip_us = 1e6 * wall_median(runs, [&] {
            check(cudaMemsetAsync(d_out, 0, 4), "cudaMemsetAsync");
            wait();
        });
        input_up_us = 1e6 * wall_median(runs, [&] {
            input_up();
            wait();
        });
        copy_floor_us = 1e6 * wall_median(runs, [&] {
            input_up();
            check(cudaMemcpyAsync(soft.get(), d_out, K * nd * sizeof(cf), cudaMemcpyDeviceToHost),
                  "cudaMemcpyAsync");
            wait();
        });
        cudaFree(d_in);
        cudaFree(d_out);
        detector.detect(rx_data.get(), nd, soft.get()); // soft again after the copies above
    }

    std::size_t worst_gap = 0, ref_errors = 0, gpu_errors = 0, streamed_errors = 0;
    for (int u = 0; u < K; u++) {
        const auto e_ref = count_symbol_errors(c, &ref_soft[u * nd], rec.sent_data[u].data(), nd);
        const auto e_gpu = count_symbol_errors(c, soft.get() + u * nd, rec.sent_data[u].data(), nd);
        for (int call : { 0, streamed_calls - 1 })
            streamed_errors += count_symbol_errors(
                c, streamed_soft.get() + (call * K + u) * nd, rec.sent_data[u].data(), nd).symbols;
        ref_errors += e_ref.symbols;
        gpu_errors += e_gpu.symbols;
        worst_gap = std::max<std::size_t>(worst_gap, e_ref.symbols > e_gpu.symbols
                                                         ? e_ref.symbols - e_gpu.symbols
                                                         : e_gpu.symbols - e_ref.symbols);
    }

    std::printf("\n%s parameters: %d users, %d antennas, %zu training and %zu data symbols, "
                "%zu dictionary entries\n",
                name, K, M, nt, nd, filters[0].entries());
    std::printf("  %-10s %14s %14s %18s %10s\n", "all users", "CPU ref (ms)", "GPU kernel",
                "GPU host to host", "goal");
    std::printf("  %-10s %14.2f %11.3f ms %15.3f ms %7.3f ms\n", "training", median(cpu_train),
                median(train_kernel), median(train_total), 2.0);
    std::printf("  %-10s %14.2f %11.1f us %15.1f us %7.1f us\n", "detection",
                median(cpu_detect), 1e3 * median(detect_kernel), 1e3 * median(detect_total), 20.0);
    std::printf("  detection streamed (%d calls submitted, pinned): %.1f us per call host to "
                "host; the host's part of a call (one submit() returning): %.1f us\n",
                streamed_calls, streamed_us, 1e3 * median(submit_host));
    std::printf("  GPU training by stage: Gram matrix %.3f ms, steps %.3f ms, residuals %.3f ms\n",
                median(gram_ms), median(steps_ms), median(residual_ms));
    std::printf("  detection's floor host to host (pinned, one stream): a 4-byte memset %.1f us, "
                "input up %.1f us, input up and output down %.1f us\n",
                round_trip_us, input_up_us, copy_floor_us);
    std::printf("  speed-up over the CPU reference: training %.0fx, detection %.0fx "
                "(host to host)\n",
                median(cpu_train) / median(train_total), median(cpu_detect) / median(detect_total));
    std::printf("  symbol errors, all users: reference %zu, GPU %zu (largest gap for a user "
                "%zu; streamed calls 1 and %d: %zu)\n",
                ref_errors, gpu_errors, worst_gap, streamed_calls, streamed_errors / 2);
}

} // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // lines survive a crash when piped
    std::string data;
    int cpu_runs = 3;
    bool library = true;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--data" && i + 1 < argc)
            data = argv[++i];
        else if (a == "--cpu-runs" && i + 1 < argc)
            cpu_runs = int(gpumimo_cli::or_exit("gpumimo_apsm_bench", [&] { return gpumimo_cli::whole("--cpu-runs", argv[++i], 1, 1000); }));
        else if (a == "--no-library-defaults")
            library = false;
        else {
            std::fprintf(stderr,
                         "usage: gpumimo_apsm_bench [--data DIR] [--cpu-runs N] "
                         "[--no-library-defaults]\n"
                         "  DIR: the apsm-ota folder (its 16-QAM time recording is used);\n"
                         "  without it a random 16-QAM mixture of the same size\n");
            return 2;
        }
    }
    try {
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        cudaDeviceProp prop;
        check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
        apsm_recording rec;
        std::string what;
        if (!data.empty()) {
            const apsm_ota_file f = apsm_ota_files(data).back();
            rec = load_apsm_recording(f.rx_path, f.tx_path);
            what = f.name + " recording";
        } else {
            rec = synthetic(16, 6, 685, 3840);
            what = "random 16-QAM mixture";
        }
        std::printf("APSM benchmark on %s: %s\n", prop.name, what.c_str());
        bench(rec, apsm_params(), "gr-gpumimo default", cpu_runs);
        if (library)
            bench(rec, apsm_params::library_defaults(), "libapsm default", 1);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpumimo_apsm_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
