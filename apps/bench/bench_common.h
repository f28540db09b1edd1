/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the benchmarks share: CUDA error checks, medians (of wall-clock runs), and the copy ceilings they
 * report beside their figures (pinned host to device, device to host, both at once on
 * two streams, device to device; GB/s, medians of 7 copies of 256 MiB).
 */
#ifndef INCLUDED_GPUMIMO_BENCH_COMMON_H
#define INCLUDED_GPUMIMO_BENCH_COMMON_H

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Seconds of one run of `body` by the wall clock: the median of `runs` after a warm-up.
double wall_median(int runs, const std::function<void()>& body)
{
    body(); // warm-up
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        t.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
}

struct ceilings {
    double h2d, d2h, both, d2d; // GB/s (both: the two directions' sum)
};

ceilings measure_ceilings()
{
    const std::size_t bytes = std::size_t(256) << 20;
    void *h1, *h2, *d1, *d2, *d3, *d4;
    check(cudaMallocHost(&h1, bytes), "cudaMallocHost");
    check(cudaMallocHost(&h2, bytes), "cudaMallocHost");
    check(cudaMalloc(&d1, bytes), "cudaMalloc");
    check(cudaMalloc(&d2, bytes), "cudaMalloc");
    check(cudaMalloc(&d3, bytes * 4), "cudaMalloc");
    check(cudaMalloc(&d4, bytes * 4), "cudaMalloc");
    std::memset(h1, 1, bytes);
    std::memset(h2, 2, bytes);
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto timed = [&](auto&& body) {
        std::vector<double> t;
        for (int i = 0; i < 7; i++) {
            cudaEventRecord(a, s1);
            body();
            cudaEventRecord(b, s1);
            cudaEventSynchronize(b);
            float ms;
            cudaEventElapsedTime(&ms, a, b);
            t.push_back(ms * 1e-3);
        }
        return median(t);
    };
    ceilings c;
    c.h2d = bytes /
            timed([&] { cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1); }) /
            1e9;
    c.d2h = bytes /
            timed([&] { cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s1); }) /
            1e9;
    cudaEvent_t joined;
    cudaEventCreate(&joined);
    c.both = 2.0 * bytes / timed([&] {
                 cudaEventRecord(joined, s1);
                 cudaStreamWaitEvent(s2, joined);
                 cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1);
                 cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2);
                 cudaEventRecord(joined, s2);
                 cudaStreamWaitEvent(s1, joined);
             }) /
             1e9;
    c.d2d =
        2.0 * 4 * bytes /
        timed([&] { cudaMemcpyAsync(d4, d3, 4 * bytes, cudaMemcpyDeviceToDevice, s1); }) /
        1e9;
    cudaFreeHost(h1);
    cudaFreeHost(h2);
    cudaFree(d1);
    cudaFree(d2);
    cudaFree(d3);
    cudaFree(d4);
    return c;
}

} // namespace

#endif
