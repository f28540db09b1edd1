/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_bench: throughput of the CUDA detectors, measured side by side with the
 * ceilings (host<->device and device memory bandwidth) and the CPU reference, beside
 * the papers' figures. Core only (no GNU Radio). Results go into docs/performance.md.
 *
 *   kernel-only: inputs already on the device, detect_device() on one stream, CUDA
 *                events, median of 21 runs after 3 warm-up runs, 4 input sets rotated
 *                so that no run finds its inputs in L2;
 *   end to end:  detect() host to host (default chunks and streams), wall clock,
 *                median of 5 runs, with the caller's buffers pinned (cudaMallocHost),
 *                registered (cudaHostRegister) or pageable (through detect()'s pinned
 *                staging); streamed: 16 batches through submit(), then finish().
 * Every channel matrix is used by one vector (group 1): the QR or filter of each
 * matrix is part of the time. Mbit/s counts detected bits.
 */
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/gpu_detector.h>

#include "bench_common.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace gr::gpumimo::core;

namespace {

// Batches a streamed end-to-end run submits back to back before its finish().
constexpr int kStreamed = 16;

struct row {
    std::string label;
    algorithm algo;
    int nt;
    modulation mod;
    detector_params params;
    std::size_t paper_batch; // vectors per call in the paper
    double paper_mbps;       // the paper's kernel figure, 0 if none
    const char* paper_ref;
    double snr_db = 20.0;
    bool slow = false; // a 16th of the full batch
};

// "mtt 2x2 qpsk", "nway 4x4 16qam N=4", "psd 4x4 16qam 20dB block", in registry order.
std::vector<row> registry_rows()
{
    std::vector<row> rows;
    for (const detector_entry* e : detector_registry())
        for (const detector_bench_case& c : e->bench) {
            std::string label = std::string(e->name) + " " + std::to_string(c.nt) + "x" +
                                std::to_string(c.nt) + " " + to_string(c.mod);
            if (*c.label)
                label += std::string(" ") + c.label;
            rows.push_back({ label,
                             e->algo,
                             c.nt,
                             c.mod,
                             c.params,
                             c.paper_batch,
                             c.paper_mbps,
                             c.paper_ref,
                             c.snr_db,
                             c.slow });
        }
    return rows;
}

struct host_data {
    std::vector<cf32> y, h;
    std::vector<float> noise;
};

// The benchmark's batches: one channel matrix and one N0 per vector (group 1).
mimo_batch per_vector_batch(
    const cf32* y, const cf32* h, const float* noise, std::size_t batch, int nt, int nr)
{
    mimo_batch mb;
    mb.y = y;
    mb.h = h;
    mb.noise_var = noise;
    mb.batch = batch;
    mb.nt = nt;
    mb.nr = nr;
    mb.group = 1;
    mb.scalar_noise = false;
    return mb;
}

host_data make_data(std::size_t batch,
                    int nt,
                    int nr,
                    modulation mod,
                    double snr_db,
                    std::mt19937_64& rng)
{
    const constellation c(mod);
    std::normal_distribution<float> g(0.0f, std::sqrt(0.5f));
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    host_data d;
    d.h.resize(batch * nr * nt);
    for (auto& v : d.h)
        v = cf32(g(rng), g(rng));
    const float n0 = float(nt * std::pow(10.0, -snr_db / 10.0));
    d.noise.assign(batch, n0);
    d.y.resize(batch * nr);
    std::vector<int> x(nt);
    for (std::size_t b = 0; b < batch; b++) {
        // One symbol per stream, seen by every receive antenna: y = H x + n. (Symbols
        // that differed per antenna, as here until 2026-11-22, are not a MIMO model at
        // all; to psd they looked like a far lower SNR than the row's.)
        for (int t = 0; t < nt; t++)
            x[t] = pick(rng);
        for (int r = 0; r < nr; r++) {
            std::complex<double> acc =
                std::sqrt(double(n0)) * std::complex<double>(g(rng), g(rng));
            for (int t = 0; t < nt; t++)
                acc += std::complex<double>(d.h[(b * nr + r) * nt + t]) * c.point(x[t]);
            d.y[b * nr + r] = cf32(acc);
        }
    }
    return d;
}

// Kernel-only Mbit/s of detect_device on `batch` vectors.
double kernel_mbps(gpu_detector& det,
                   const std::vector<host_data>& sets,
                   std::size_t batch,
                   int nt,
                   int nr)
{
    const int bits = det.bits_per_vector();
    struct dev_set {
        cf32 *y, *h;
        float* noise;
    };
    std::vector<dev_set> ds(sets.size());
    for (std::size_t i = 0; i < sets.size(); i++) {
        check(cudaMalloc(&ds[i].y, batch * nr * sizeof(cf32)), "cudaMalloc");
        check(cudaMalloc(&ds[i].h, batch * nr * nt * sizeof(cf32)), "cudaMalloc");
        check(cudaMalloc(&ds[i].noise, batch * sizeof(float)), "cudaMalloc");
        cudaMemcpy(
            ds[i].y, sets[i].y.data(), batch * nr * sizeof(cf32), cudaMemcpyHostToDevice);
        cudaMemcpy(ds[i].h,
                   sets[i].h.data(),
                   batch * nr * nt * sizeof(cf32),
                   cudaMemcpyHostToDevice);
        cudaMemcpy(ds[i].noise,
                   sets[i].noise.data(),
                   batch * sizeof(float),
                   cudaMemcpyHostToDevice);
    }
    float* llr;
    check(cudaMalloc(&llr, batch * bits * sizeof(float)), "cudaMalloc");
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<double> t;
    for (int run = 0; run < 24; run++) {
        const dev_set& d = ds[run % ds.size()];
        const mimo_batch mb = per_vector_batch(d.y, d.h, d.noise, batch, nt, nr);
        cudaEventRecord(a, s);
        det.detect_device(mb, llr, s);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (run >= 3)
            t.push_back(ms * 1e-3);
    }
    det.check_device_errors(s);
    for (auto& d : ds) {
        cudaFree(d.y);
        cudaFree(d.h);
        cudaFree(d.noise);
    }
    cudaFree(llr);
    cudaStreamDestroy(s);
    return batch * double(bits) / median(t) / 1e6;
}

// Where the caller's buffers live: allocated pinned (cudaMallocHost), ordinary memory
// page-locked afterwards (cudaHostRegister), or pageable. detect() copies pinned memory
// directly and pageable memory through its staging buffers.
enum class host_memory { allocated_pinned, registered, pageable };

// `streamed` > 1: that many batches submitted back to back per timed run, each into
// its own pinned LLR buffer (the inputs shared), then one finish(): a receiver handing
// over batch after batch, whose chunks stay in flight across calls (pinned memory only).
double host_mbps(gpu_detector& det,
                 host_data& d,
                 std::size_t batch,
                 int nt,
                 int nr,
                 host_memory kind,
                 int streamed = 1)
{
    if (streamed > 1 && kind != host_memory::allocated_pinned)
        throw std::invalid_argument("host_mbps: streamed runs take pinned memory");
    const std::size_t nllr = batch * det.bits_per_vector();
    std::vector<float> llr_vec(nllr);
    cf32 *y = d.y.data(), *h = d.h.data();
    float *noise = d.noise.data(), *llr = llr_vec.data();
    std::vector<float*> more_llr(streamed - 1); // outputs of the 2nd, 3rd ... batch
    if (kind == host_memory::allocated_pinned) {
        check(cudaMallocHost(&y, d.y.size() * sizeof(cf32)), "cudaMallocHost");
        check(cudaMallocHost(&h, d.h.size() * sizeof(cf32)), "cudaMallocHost");
        check(cudaMallocHost(&noise, d.noise.size() * sizeof(float)), "cudaMallocHost");
        check(cudaMallocHost(&llr, nllr * sizeof(float)), "cudaMallocHost");
        for (float*& p : more_llr)
            check(cudaMallocHost(&p, nllr * sizeof(float)), "cudaMallocHost");
        std::memcpy(y, d.y.data(), d.y.size() * sizeof(cf32));
        std::memcpy(h, d.h.data(), d.h.size() * sizeof(cf32));
        std::memcpy(noise, d.noise.data(), d.noise.size() * sizeof(float));
    } else if (kind == host_memory::registered) {
        check(cudaHostRegister(y, d.y.size() * sizeof(cf32), 0), "cudaHostRegister");
        check(cudaHostRegister(h, d.h.size() * sizeof(cf32), 0), "cudaHostRegister");
        check(cudaHostRegister(noise, d.noise.size() * sizeof(float), 0),
              "cudaHostRegister");
        check(cudaHostRegister(llr, nllr * sizeof(float), 0), "cudaHostRegister");
    }
    const mimo_batch mb = per_vector_batch(y, h, noise, batch, nt, nr);
    const double t = wall_median(5, [&] {
        if (streamed == 1) {
            det.detect(mb, llr);
        } else {
            det.submit(mb, llr);
            for (float* p : more_llr)
                det.submit(mb, p);
            det.finish();
        }
    });
    if (kind == host_memory::allocated_pinned) {
        cudaFreeHost(y);
        cudaFreeHost(h);
        cudaFreeHost(noise);
        cudaFreeHost(llr);
        for (float* p : more_llr)
            cudaFreeHost(p);
    } else if (kind == host_memory::registered) {
        cudaHostUnregister(y);
        cudaHostUnregister(h);
        cudaHostUnregister(noise);
        cudaHostUnregister(llr);
    }
    return streamed * batch * double(det.bits_per_vector()) / t / 1e6;
}

double cpu_mbps(const row& r, const host_data& d, std::size_t batch)
{
    const cpu_detector det(r.algo, r.mod, r.nt, r.nt, r.params);
    std::vector<float> llr(batch * det.bits_per_vector());
    const mimo_batch mb =
        per_vector_batch(d.y.data(), d.h.data(), d.noise.data(), batch, r.nt, r.nt);
    const auto t0 = std::chrono::steady_clock::now();
    det.detect(mb, llr.data());
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return batch * double(det.bits_per_vector()) / s / 1e6;
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    std::string only, profile, pipeline;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--quick")
            quick = true;
        else if (arg == "--rows" && i + 1 < argc)
            only = argv[++i];
        else if (arg == "--profile" && i + 1 < argc)
            profile = argv[++i];
        else if (arg == "--pipeline" && i + 1 < argc)
            pipeline = argv[++i];
        else {
            std::printf(
                "usage: gpumimo_bench [--quick] [--rows SUBSTRING] [--profile ROW]\n"
                "  --profile ROW: one float32 detect_device() of that row at 2^20 "
                "vectors,\n"
                "                 nothing else (for ncu)\n");
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("gpumimo_bench: no CUDA device; nothing to measure\n");
        return 0;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("device: %s, %d SMs, %.0f GiB\n",
                prop.name,
                prop.multiProcessorCount,
                prop.totalGlobalMem / 1073741824.0);

    // Every detector's benchmark configurations come from the registry (its entry's
    // bench list: its paper's tables, with the paper's figure where there is one).
    const std::vector<row> rows = registry_rows();
    std::mt19937_64 rng(12345);
    if (!pipeline.empty()) {
        // End to end (pinned) of one row over chunk sizes and stream counts.
        for (const row& r : rows)
            if (r.label == pipeline) {
                host_data d = make_data(1 << 20, r.nt, r.nt, r.mod, r.snr_db, rng);
                for (int streams : { 2, 3, 4, 6 })
                    for (std::size_t chunk :
                         { 1u << 14, 1u << 15, 1u << 16, 1u << 17, 1u << 18 }) {
                        gpu_detector det(r.algo,
                                         r.mod,
                                         r.nt,
                                         r.nt,
                                         r.params,
                                         0,
                                         gpu_precision::single,
                                         chunk,
                                         streams);
                        const double single = host_mbps(
                            det, d, 1 << 20, r.nt, r.nt, host_memory::allocated_pinned);
                        const double streamed = host_mbps(det,
                                                          d,
                                                          1 << 20,
                                                          r.nt,
                                                          r.nt,
                                                          host_memory::allocated_pinned,
                                                          kStreamed);
                        std::printf("%s: streams %d chunk %zu: %.0f Mbit/s end to end "
                                    "(pinned), %.0f streamed\n",
                                    r.label.c_str(),
                                    streams,
                                    chunk,
                                    single,
                                    streamed);
                    }
                return 0;
            }
        std::printf("no row '%s'\n", pipeline.c_str());
        return 2;
    }
    if (!profile.empty()) {
        for (const row& r : rows)
            if (r.label == profile) {
                std::vector<host_data> sets{ make_data(
                    1 << 20, r.nt, r.nt, r.mod, r.snr_db, rng) };
                gpu_detector det(r.algo,
                                 r.mod,
                                 r.nt,
                                 r.nt,
                                 r.params,
                                 0,
                                 gpu_precision::single,
                                 1 << 20,
                                 1);
                std::printf("%s: %.0f Mbit/s\n",
                            r.label.c_str(),
                            kernel_mbps(det, sets, 1 << 20, r.nt, r.nt));
                return 0;
            }
        std::printf("no row '%s'\n", profile.c_str());
        return 2;
    }
    const ceilings c = measure_ceilings();
    std::printf("ceilings: H2D %.1f GB/s, D2H %.1f GB/s, both directions %.1f GB/s, "
                "device copy %.0f GB/s (read + write)\n",
                c.h2d,
                c.d2h,
                c.both,
                c.d2d);
    const std::size_t full = quick ? (1 << 18) : (1 << 20);

    std::printf("\n%-20s %8s %8s %10s %10s %10s %10s %7s %10s %7s %10s %10s %8s\n",
                "detector",
                "paper",
                "paper",
                "ours@paper",
                "ours@full",
                "ours@full",
                "end2end",
                "PCIe",
                "streamed",
                "PCIe",
                "end2end",
                "end2end",
                "CPU ref");
    std::printf("%-20s %8s %8s %10s %10s %10s %10s %7s %10s %7s %10s %10s %8s\n",
                "",
                "source",
                "Mbit/s",
                "kernel f32",
                "kernel f32",
                "kernel f64",
                "pinned f32",
                "bound%",
                "pinned f32",
                "bound%",
                "registered",
                "pageable",
                "Mbit/s");
    for (const row& r : rows) {
        if (!only.empty() && r.label.find(only) == std::string::npos)
            continue;
        const int nt = r.nt, nr = r.nt;
        const std::size_t batch_full = r.slow ? full / 16 : full;
        std::vector<host_data> sets;
        for (int i = 0; i < 4; i++)
            sets.push_back(make_data(batch_full, nt, nr, r.mod, r.snr_db, rng));
        gpu_detector f32(
            r.algo, r.mod, nt, nr, r.params, 0, gpu_precision::single, 1 << 18, 3);
        gpu_detector f64(
            r.algo, r.mod, nt, nr, r.params, 0, gpu_precision::double_, 1 << 18, 3);
        const double at_paper =
            kernel_mbps(f32, sets, std::min(r.paper_batch, batch_full), nt, nr);
        const double k32 = kernel_mbps(f32, sets, batch_full, nt, nr);
        const double k64 = kernel_mbps(f64, sets, batch_full, nt, nr);
        // End to end through the default pipeline: automatic chunks over 3 streams.
        gpu_detector piped(r.algo, r.mod, nt, nr, r.params, 0, gpu_precision::single);
        const double e2e =
            host_mbps(piped, sets[0], batch_full, nt, nr, host_memory::allocated_pinned);
        const double e2e_streamed = host_mbps(
            piped, sets[0], batch_full, nt, nr, host_memory::allocated_pinned, kStreamed);
        const double e2e_registered =
            host_mbps(piped, sets[3], batch_full, nt, nr, host_memory::registered);
        const double e2e_pageable =
            host_mbps(piped, sets[2], batch_full, nt, nr, host_memory::pageable);
        // Bytes per vector: y and H in (8 B per complex), noise (4 B), LLRs out (4 B).
        const int bits = f32.bits_per_vector();
        const double in_b = nr * 8.0 + nr * nt * 8.0 + 4.0, out_b = bits * 4.0;
        const double pcie_vps =
            1.0 / std::max(in_b / (c.h2d * 1e9), out_b / (c.d2h * 1e9));
        const double pcie_both_vps = c.both * 1e9 / (in_b + out_b);
        const double bound_mbps = std::min(pcie_vps, pcie_both_vps) * bits / 1e6;
        const std::size_t cpu_batch = r.slow ? 256 : 8192;
        const double cpu = cpu_mbps(r, sets[1], cpu_batch);
        char paper[32] = "-";
        if (r.paper_mbps > 0)
            std::snprintf(paper, sizeof paper, "%.1f", r.paper_mbps);
        std::printf(
            "%-20s %8s %8s %10.0f %10.0f %10.0f %10.0f %6.0f%% %10.0f %6.0f%% %10.0f %10.0f "
            "%8.1f\n",
            r.label.c_str(),
            r.paper_ref[0] ? r.paper_ref : "-",
            paper,
            at_paper,
            k32,
            k64,
            e2e,
            100.0 * e2e / bound_mbps,
            e2e_streamed,
            100.0 * e2e_streamed / bound_mbps,
            e2e_registered,
            e2e_pageable,
            cpu);
    }
    std::printf(
        "\nkernel: device-resident, median of 21 (ours@paper: the paper's vectors per "
        "call, "
        "ours@full: %zu); end2end: host to host, median of 5, caller buffers pinned "
        "(cudaMallocHost), registered (cudaHostRegister) or pageable; streamed: %d "
        "batches submitted back to back, then finish() (chunks in flight across calls), "
        "per batch; PCIe bound%%: "
        "pinned end2end over the min(H2D/D2H, bidirectional) limit "
        "for y+H+N0 in and LLRs out; CPU ref: all %u cores. Group 1 (a QR per vector).\n",
        full,
        kStreamed,
        std::thread::hardware_concurrency());
    return 0;
}
