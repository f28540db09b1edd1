/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_copy_bench: the copies of the host-to-host pipelines alone, no kernels: the
 * rate a pipeline could reach at best with its chunking, beside the bus ceilings of
 * bench_common.h (one 256 MiB copy per direction). Each chunk's copies go on one of S
 * streams; a slot is reused once its previous chunk is done (cudaEventSynchronize, as
 * the pipelines do); the calls are streamed back to back (no idle bus between them).
 *
 *  - detector: per 2x2 or 4x4 vector y, H, N0 in as three copies (the caller's three
 *    arrays, as gpu_detector makes them) or as one, LLRs out; chunks of 2^14 .. 2^18;
 *  - OFDM FFT, 512 points, 8-bit I/O: 1,024 bytes in and out per FFT; chunks of 2,048
 *    to 16,384 FFTs.
 *
 * The gap between one copy and three of the same bytes is the copy engine's fixed cost
 * per copy (docs/performance.md).
 *
 *   gpumimo_copy_bench
 */
#include "bench_common.h"

#include <cstdio>
#include <vector>

namespace {

// Moves `total` items per run: per item the byte counts `in` (one copy each per chunk)
// host to device and `out` back; `per_chunk` items a chunk over `streams` slots.
// Returns items per second, median of 5 runs after one warm-up.
double items_per_second(const std::vector<std::size_t>& in,
                        std::size_t out,
                        std::size_t per_chunk,
                        std::size_t total,
                        int streams)
{
    std::size_t in_bytes = 0;
    for (std::size_t b : in)
        in_bytes += b;
    void *host_in, *host_out, *dev_in, *dev_out;
    check(cudaMallocHost(&host_in, in_bytes * total), "cudaMallocHost");
    check(cudaMallocHost(&host_out, out * total), "cudaMallocHost");
    std::memset(host_in, 1, in_bytes * total);
    check(cudaMalloc(&dev_in, in_bytes * per_chunk * streams), "cudaMalloc");
    check(cudaMalloc(&dev_out, out * per_chunk * streams), "cudaMalloc");
    std::vector<cudaStream_t> st(streams);
    std::vector<cudaEvent_t> done(streams);
    for (int i = 0; i < streams; i++) {
        check(cudaStreamCreate(&st[i]), "cudaStreamCreate");
        check(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), "cudaEventCreate");
    }
    auto* const hin = static_cast<unsigned char*>(host_in);
    auto* const hout = static_cast<unsigned char*>(host_out);
    auto* const din = static_cast<unsigned char*>(dev_in);
    auto* const dout = static_cast<unsigned char*>(dev_out);
    const double t = wall_median(5, [&] {
        std::vector<bool> pending(streams, false);
        std::size_t k = 0;
        for (std::size_t i0 = 0; i0 < total; i0 += per_chunk, k++) {
            const int s = int(k % streams);
            if (pending[s])
                check(cudaEventSynchronize(done[s]), "cudaEventSynchronize");
            // Array a of the host input holds `total` items of in[a] bytes each.
            std::size_t array_start = 0, slot_at = std::size_t(s) * in_bytes * per_chunk;
            for (std::size_t b : in) {
                check(cudaMemcpyAsync(din + slot_at,
                                      hin + array_start + b * i0,
                                      b * per_chunk,
                                      cudaMemcpyHostToDevice,
                                      st[s]),
                      "cudaMemcpyAsync H2D");
                array_start += b * total;
                slot_at += b * per_chunk;
            }
            check(cudaMemcpyAsync(hout + out * i0,
                                  dout + std::size_t(s) * out * per_chunk,
                                  out * per_chunk,
                                  cudaMemcpyDeviceToHost,
                                  st[s]),
                  "cudaMemcpyAsync D2H");
            check(cudaEventRecord(done[s], st[s]), "cudaEventRecord");
            pending[s] = true;
        }
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    });
    for (int i = 0; i < streams; i++) {
        cudaStreamDestroy(st[i]);
        cudaEventDestroy(done[i]);
    }
    cudaFreeHost(host_in);
    cudaFreeHost(host_out);
    cudaFree(dev_in);
    cudaFree(dev_out);
    return total / t;
}

// The PCIe ceiling of the first `gpus` GPUs copying at once (issue 29): on each, 256 MiB
// host to device and, with `both`, 256 MiB back at the same time on a second stream;
// every copy enqueued, then every device waited for. GB/s summed over the GPUs, median
// of 7 by the host's clock. Several GPUs of one host share its memory and PCIe root
// ports: this is what host-to-host work spread over them can reach at most.
double several_gpus_gbs(int gpus, bool both)
{
    const std::size_t bytes = std::size_t(256) << 20;
    struct lane {
        void *host_in, *host_out, *dev_in, *dev_out;
        cudaStream_t in, out;
    };
    std::vector<lane> lanes(gpus);
    for (int d = 0; d < gpus; d++) {
        lane& l = lanes[d];
        check(cudaSetDevice(d), "cudaSetDevice");
        check(cudaMallocHost(&l.host_in, bytes), "cudaMallocHost");
        check(cudaMallocHost(&l.host_out, bytes), "cudaMallocHost");
        std::memset(l.host_in, 1, bytes);
        check(cudaMalloc(&l.dev_in, bytes), "cudaMalloc");
        check(cudaMalloc(&l.dev_out, bytes), "cudaMalloc");
        check(cudaStreamCreate(&l.in), "cudaStreamCreate");
        check(cudaStreamCreate(&l.out), "cudaStreamCreate");
    }
    const double t = wall_median(7, [&] {
        for (int d = 0; d < gpus; d++) {
            lane& l = lanes[d];
            check(cudaSetDevice(d), "cudaSetDevice");
            check(cudaMemcpyAsync(l.dev_in, l.host_in, bytes, cudaMemcpyHostToDevice, l.in),
                  "cudaMemcpyAsync H2D");
            if (both)
                check(cudaMemcpyAsync(l.host_out, l.dev_out, bytes, cudaMemcpyDeviceToHost, l.out),
                      "cudaMemcpyAsync D2H");
        }
        for (int d = 0; d < gpus; d++) {
            check(cudaSetDevice(d), "cudaSetDevice");
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        }
    });
    for (int d = 0; d < gpus; d++) {
        lane& l = lanes[d];
        check(cudaSetDevice(d), "cudaSetDevice");
        cudaStreamDestroy(l.in);
        cudaStreamDestroy(l.out);
        cudaFreeHost(l.host_in);
        cudaFreeHost(l.host_out);
        cudaFree(l.dev_in);
        cudaFree(l.dev_out);
    }
    check(cudaSetDevice(0), "cudaSetDevice");
    return double(gpus) * bytes * (both ? 2 : 1) / t / 1e9;
}

} // namespace

int main()
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    const ceilings c = measure_ceilings();
    std::printf("device: %s; ceilings: H2D %.1f GB/s, D2H %.1f GB/s, both directions at "
                "once %.1f GB/s (sum)\n",
                prop.name,
                c.h2d,
                c.d2h,
                c.both);

    std::printf("\ndetector copies, 2^22 vectors streamed, 3 streams: %% of the PCIe bound "
                "(min of H2D alone, D2H alone, both at once)\n");
    std::printf("%-12s %9s %14s %14s\n", "vector", "chunk", "3 copies in", "1 copy in");
    struct shape {
        const char* name;
        int nt, bits;
    };
    for (const shape& v : { shape{ "2x2 16-QAM", 2, 8 }, shape{ "4x4 16-QAM", 4, 16 } }) {
        const std::size_t y = 8 * v.nt, h = 8 * v.nt * v.nt, n0 = 4, out = 4 * v.bits;
        const double in = double(y + h + n0);
        const double bound = std::min(std::min(c.h2d * 1e9 / in, c.d2h * 1e9 / out),
                                      c.both * 1e9 / (in + out));
        for (int log2 = 14; log2 <= 18; log2 += 2) {
            const std::size_t chunk = std::size_t(1) << log2, total = std::size_t(1) << 22;
            const double three = items_per_second({ y, h, n0 }, out, chunk, total, 3);
            const double one = items_per_second({ y + h + n0 }, out, chunk, total, 3);
            std::printf("%-12s %9zu %13.1f%% %13.1f%%\n",
                        v.name,
                        chunk,
                        100 * three / bound,
                        100 * one / bound);
        }
    }

    std::printf("\nOFDM FFT copies, 512 points 8-bit (1,024 B in and out per FFT), 2^19 "
                "FFTs streamed: %% of both directions at once\n");
    std::printf("%-12s %9s %14s %14s\n", "streams", "chunk", "GB/s (sum)", "of ceiling");
    for (int streams : { 3, 4 })
        for (std::size_t chunk : { 2048, 4096, 8192, 16384 }) {
            const double gbs =
                items_per_second({ 1024 }, 1024, chunk, std::size_t(1) << 19, streams) *
                2048 / 1e9;
            std::printf("%-12d %9zu %14.1f %13.1f%%\n", streams, chunk, gbs, 100 * gbs / c.both);
        }

    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices >= 2) {
        std::printf("\nseveral GPUs copying at once, 256 MiB each way per GPU (GB/s summed "
                    "over the GPUs; x: against one GPU's)\n");
        std::printf("%-8s %14s %8s %22s %8s\n", "GPUs", "H2D", "x", "both directions", "x");
        const double h2d_one = several_gpus_gbs(1, false), both_one = several_gpus_gbs(1, true);
        for (int g = 1; g <= devices; g = g < devices && 2 * g > devices ? devices : 2 * g) {
            const double h2d = g == 1 ? h2d_one : several_gpus_gbs(g, false);
            const double all = g == 1 ? both_one : several_gpus_gbs(g, true);
            std::printf("%-8d %14.1f %7.2fx %22.1f %7.2fx\n", g, h2d, h2d / h2d_one, all,
                        all / both_one);
        }
    }
    return 0;
}
