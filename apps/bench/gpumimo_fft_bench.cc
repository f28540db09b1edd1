/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_fft_bench: the OFDM FFT on the GPU, side by side with plain cuFFT and the
 * copy ceilings, in one run. Core only (no GNU Radio). Results go into
 * docs/performance.md.
 *
 *  1. The ladder of gigabit-fft-gpu.txt (Tables 4 and 6) for 512 points, host to host:
 *     one FFT per call; a large batch; pinned memory; streams; then core::gpu_ofdm_fft
 *     with 16-bit (fc16) and 8-bit (sc8) I/O; the fused receiver step (sc16 in,
 *     prefix removed, shift, 400 carriers, fc16 out); two GPUs where there are two.
 *     ns per FFT and Gsample/s beside the paper's figure and the ceiling of the bus
 *     (the measured bidirectional copy rate and the bytes an FFT moves).
 *  2. Data already on the device: plain cuFFT (in place, fc32) against
 *     gpu_ofdm_fft::enqueue_device (fc32 in and out, no prefix) on each of its paths
 *     (single-pass transform, cuFFT callbacks, conversion kernels): the ratios; and
 *     process_device, which waits for its zeroed count, for its cost per call.
 *  3. Sizes 64 .. 4096 with 16 channels of sc16 input (an N310 array), host to host.
 * Wall clock around whole calls (host to host) or CUDA events (device), medians.
 *
 *   gpumimo_fft_bench [--quick]
 */
#include "bench_common.h"
#include "common/cufft_check.cuh"
#include "common/device_memory.cuh"

#include <gnuradio/gpumimo/core/ofdm/gpu_ofdm_fft.h>

#include <cufft.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

using namespace gr::gpumimo::core;

namespace {

namespace gc = gr::gpumimo::cuda;

// Pinned host bytes holding a fixed pattern, and zeroed device bytes.
gc::pinned_buffer<unsigned char> filled_pinned(std::size_t bytes)
{
    gc::pinned_buffer<unsigned char> b(bytes);
    std::memset(b.get(), 0x11, bytes);
    return b;
}
gc::device_buffer<unsigned char> zeroed_device(std::size_t bytes)
{
    gc::device_buffer<unsigned char> b(bytes);
    GPUMIMO_CUDA_CHECK(cudaMemset(b.get(), 0, bytes));
    return b;
}

void print_rung(
    const char* name, double ns_per_fft, int n, double paper_us, double ceiling_ns)
{
    std::printf("%-44s %9.2f %8.2f", name, ns_per_fft, n / ns_per_fft);
    if (paper_us > 0)
        std::printf(" %9.0f", paper_us * 1e3);
    else
        std::printf(" %9s", "-");
    if (ceiling_ns > 0)
        std::printf(" %9.2f %6.0f%%", ceiling_ns, 100 * ceiling_ns / ns_per_fft);
    std::printf("\n");
}

// Host to host through gpu_ofdm_fft: ns per FFT (channels x symbols transforms).
// `streamed` > 1: that many calls submitted back to back per timed run, each into its
// own output (the input shared), then finish(), so chunks stay in flight across calls
// as in a receiver handing over block after block.
double ofdm_host_to_host(const ofdm_fft_config& c,
                         std::size_t nsym,
                         const std::vector<int>& devices,
                         std::size_t chunk,
                         int runs,
                         int streams = 3,
                         int streamed = 1)
{
    gpu_ofdm_fft gpu(c, devices, chunk, streams);
    const ofdm_fft_layout& lay = gpu.layout();
    const std::size_t in_len = lay.in_samples(0, nsym),
                      out_len = lay.out_samples(0, nsym);
    const auto in = filled_pinned(c.channels * in_len * bytes_per_sample(c.input));
    std::vector<gc::pinned_buffer<unsigned char>> outs;
    for (int k = 0; k < streamed; k++)
        outs.push_back(filled_pinned(c.channels * out_len * bytes_per_sample(c.output)));
    const double t = wall_median(runs, [&] {
        for (auto& out : outs)
            gpu.submit({ in.get(), in_len, out.get(), out_len, 0, nsym });
        gpu.finish();
    });
    return 1e9 * t / (double(c.channels) * nsym * streamed);
}

ofdm_fft_config plain(int n, sample_format f)
{
    ofdm_fft_config c;
    c.fft_len = n;
    c.input = c.output = f;
    return c;
}

} // namespace

int main(int argc, char** argv)
{
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // lines reach a pipe even if a row fails
    const int n = 512;
    const std::size_t batch = quick ? (1 << 14) : (1 << 16); // 512-point FFTs per call
    const int runs = quick ? 5 : 9;
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("device: %s, %d visible; %zu FFTs of %d points per call, median of %d\n",
                prop.name,
                devices,
                batch,
                n,
                runs);

    const ceilings cl = measure_ceilings();
    std::printf(
        "ceilings: H2D %.1f GB/s, D2H %.1f GB/s, both directions at once %.1f GB/s "
        "(sum), device copy %.0f GB/s\n\n",
        cl.h2d,
        cl.d2h,
        cl.both,
        cl.d2d);
    // The bus ceiling of an FFT moving `bytes` in and `bytes` out at the same time.
    const auto bus_ns = [&](double bytes) { return 1e9 * 2 * bytes / (cl.both * 1e9); };

    std::printf("%-44s %9s %8s %9s %9s %7s\n",
                "512-point ladder (host to host)",
                "ns/FFT",
                "Gsps",
                "paper ns",
                "bus ns",
                "of bus");
    const std::size_t fc32_bytes = std::size_t(n) * 8;
    {
        // 1. One FFT per call, pageable memory.
        std::vector<float> host(2 * n, 0.5f);
        const auto dev = zeroed_device(fc32_bytes);
        cufftHandle one;
        GPUMIMO_CUFFT_CHECK(cufftPlan1d(&one, n, CUFFT_C2C, 1));
        const int calls = quick ? 500 : 2000;
        const double t = wall_median(runs, [&] {
            for (int i = 0; i < calls; i++) {
                check(cudaMemcpy(
                          dev.get(), host.data(), fc32_bytes, cudaMemcpyHostToDevice),
                      "H2D");
                GPUMIMO_CUFFT_CHECK(cufftExecC2C(one,
                                                 (cufftComplex*)dev.get(),
                                                 (cufftComplex*)dev.get(),
                                                 CUFFT_FORWARD));
                check(cudaMemcpy(
                          host.data(), dev.get(), fc32_bytes, cudaMemcpyDeviceToHost),
                      "D2H");
            }
        });
        print_rung(
            "cuFFT, one FFT per call", 1e9 * t / calls, n, 7.0, bus_ns(fc32_bytes));
        cufftDestroy(one);
    }
    const std::size_t bytes = batch * fc32_bytes;
    const auto dev = zeroed_device(bytes);
    cufftHandle plan;
    int len = n;
    GPUMIMO_CUFFT_CHECK(cufftPlanMany(
        &plan, 1, &len, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, int(batch)));
    auto exec = [&](void* p, cufftHandle h) {
        GPUMIMO_CUFFT_CHECK(
            cufftExecC2C(h, (cufftComplex*)p, (cufftComplex*)p, CUFFT_FORWARD));
    };
    {
        // 2. A large batch, pageable; 3. pinned.
        std::vector<unsigned char> pageable(bytes, 0x11);
        for (int pin = 0; pin < 2; pin++) {
            const auto p = filled_pinned(pin ? bytes : 1);
            void* h = pin ? p.get() : pageable.data();
            const double t = wall_median(runs, [&] {
                check(cudaMemcpy(dev.get(), h, bytes, cudaMemcpyHostToDevice), "H2D");
                exec(dev.get(), plan);
                check(cudaMemcpy(h, dev.get(), bytes, cudaMemcpyDeviceToHost), "D2H");
            });
            print_rung(pin ? "cuFFT, large batch, pinned"
                           : "cuFFT, large batch, pageable",
                       1e9 * t / batch,
                       n,
                       pin ? 2.83 : 4.15,
                       bus_ns(fc32_bytes));
        }
    }
    {
        // 4. Pinned, chunks over 3 streams (copies and transforms overlap).
        const int streams = 3;
        const std::size_t chunks = 16, per = batch / chunks;
        const auto h = filled_pinned(bytes);
        std::vector<cudaStream_t> st(streams);
        std::vector<cufftHandle> plans(streams);
        for (int i = 0; i < streams; i++) {
            check(cudaStreamCreate(&st[i]), "cudaStreamCreate");
            GPUMIMO_CUFFT_CHECK(cufftPlanMany(
                &plans[i], 1, &len, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, int(per)));
            GPUMIMO_CUFFT_CHECK(cufftSetStream(plans[i], st[i]));
        }
        const double t = wall_median(runs, [&] {
            for (std::size_t k = 0; k < chunks; k++) {
                const int i = int(k % streams);
                unsigned char* hp =
                    static_cast<unsigned char*>(h.get()) + k * per * fc32_bytes;
                unsigned char* dp =
                    static_cast<unsigned char*>(dev.get()) + k * per * fc32_bytes;
                check(cudaMemcpyAsync(
                          dp, hp, per * fc32_bytes, cudaMemcpyHostToDevice, st[i]),
                      "H2D");
                exec(dp, plans[i]);
                check(cudaMemcpyAsync(
                          hp, dp, per * fc32_bytes, cudaMemcpyDeviceToHost, st[i]),
                      "D2H");
            }
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        });
        print_rung(
            "cuFFT, pinned, 3 streams", 1e9 * t / batch, n, 2.54, bus_ns(fc32_bytes));
        for (int i = 0; i < streams; i++) {
            cufftDestroy(plans[i]);
            cudaStreamDestroy(st[i]);
        }
    }
    // 5.-8. Ours: conversions fused around cuFFT, chunks over 3 streams (16 per call, as
    // in rung 4; then larger ones, which amortise each chunk's fixed costs).
    const std::size_t chunk = batch / 16;
    print_rung(
        "gpu_ofdm_fft, 16-bit I/O (fc16)",
        ofdm_host_to_host(plain(n, sample_format::fc16), batch, { 0 }, chunk, runs),
        n,
        1.34,
        bus_ns(n * 4.0));
    const double ns8 =
        ofdm_host_to_host(plain(n, sample_format::sc8), batch, { 0 }, chunk, runs);
    print_rung("gpu_ofdm_fft, 8-bit I/O (sc8)", ns8, n, 0.534, bus_ns(n * 2.0));
    // The same calls handed over back to back (submit/finish), as a receiver streams
    // block after block: no idle bus at each call's start and end, so the default chunk
    // (2^22 samples, 8,192 FFTs: half the copies, each with its fixed cost) pays off.
    const int streamed = 16;
    const double ns8_streamed =
        ofdm_host_to_host(plain(n, sample_format::sc8), batch, { 0 }, 0, runs, 3, streamed);
    print_rung("  the same, 16 calls streamed, default chunks",
               ns8_streamed,
               n,
               0,
               bus_ns(n * 2.0));
    print_rung("  the same, 16 calls streamed, chunks of 4096",
               ofdm_host_to_host(
                   plain(n, sample_format::sc8), batch, { 0 }, chunk, runs, 3, streamed),
               n,
               0,
               bus_ns(n * 2.0));
    // Other chunk sizes and stream counts: each chunk's fixed costs (launches, the
    // zeroed count's copy, a host wait per slot) against the copies' overlap.
    const std::pair<std::size_t, int> variants[] = { { 2 * chunk, 3 }, { 4 * chunk, 3 },
                                                     { chunk / 2, 3 }, { chunk / 4, 3 },
                                                     { chunk, 4 },     { chunk / 2, 6 } };
    for (const auto& [size, streams] : variants) {
        const std::string name = "  the same, chunks of " + std::to_string(size) +
                                 " FFTs, " + std::to_string(streams) + " streams";
        print_rung(name.c_str(),
                   ofdm_host_to_host(
                       plain(n, sample_format::sc8), batch, { 0 }, size, runs, streams),
                   n,
                   0,
                   bus_ns(n * 2.0));
    }
    {
        ofdm_fft_config c;
        c.fft_len = n;
        c.cp_lengths = { 40, 36, 36, 36, 36, 36, 36 };
        c.input = sample_format::sc16;
        c.output = sample_format::fc16;
        c.shift = true;
        for (int k = 56; k < 456; k++)
            c.carriers.push_back(k);
        const double ns = ofdm_host_to_host(c, batch, { 0 }, chunk, runs);
        // Bytes: 548.6 sc16 samples in, 400 fc16 carriers out, per symbol.
        print_rung("fused: sc16 in, CP, shift, 400 carriers, fc16",
                   ns,
                   n,
                   0,
                   1e9 * (548.6 * 4 + 400 * 4) / (cl.both * 1e9));
    }
    // The same 8-bit transforms with each call's chunks over 2, 4, ... and then every
    // visible GPU (issue 29), as many FFTs per GPU as one GPU had, so each device keeps
    // its chunks: the ceiling is that many buses side by side. Once a call at a time,
    // then 16 calls streamed with the default chunks (fewer chunks to hand out per call).
    std::vector<int> gpu_counts;
    for (int g = 2; g < devices; g *= 2)
        gpu_counts.push_back(g);
    if (devices >= 2)
        gpu_counts.push_back(devices);
    for (const int g : gpu_counts) {
        std::vector<int> list;
        for (int d = 0; d < g; d++)
            list.push_back(d);
        const sample_format sc8 = sample_format::sc8;
        const std::size_t nsym = std::size_t(g) * batch;
        const double one_call = ofdm_host_to_host(plain(n, sc8), nsym, list, chunk, runs);
        const std::string name = "gpu_ofdm_fft, 8-bit I/O, " + std::to_string(g) + " GPUs";
        print_rung(name.c_str(), one_call, n, g == 2 ? 0.197 : 0, bus_ns(n * 2.0) / g);
        std::printf("%-44s %9.2fx one GPU's rate\n", "", ns8 / one_call);
        const double many =
            ofdm_host_to_host(plain(n, sc8), nsym, list, 0, runs, 3, streamed);
        print_rung("  the same, 16 calls streamed, default chunks", many, n, 0,
                   bus_ns(n * 2.0) / g);
        std::printf("%-44s %9.2fx one GPU's rate\n", "", ns8_streamed / many);
    }
    if (devices < 2)
        std::printf("%-44s (one GPU visible: not run)\n", "gpu_ofdm_fft, 8-bit I/O, several GPUs");

    // 2. Device-resident: plain cuFFT against enqueue_device (and process_device), fc32.
    {
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        const auto timed = [&](const std::function<void()>& body) {
            body();
            std::vector<double> t;
            for (int i = 0; i < 3 * runs; i++) {
                cudaEventRecord(a, 0);
                body();
                cudaEventRecord(b, 0);
                cudaEventSynchronize(b);
                float ms;
                cudaEventElapsedTime(&ms, a, b);
                t.push_back(ms * 1e6);
            }
            return median(t);
        };
        const double plain_ns = timed([&] { exec(dev.get(), plan); }) / batch;
        const auto out = zeroed_device(bytes);
        // Each path of gpu_ofdm_fft on the same data, enqueued as cuFFT is (no wait);
        // a path the build or the toolkit does not have prints why. Then
        // process_device, which also waits for the zeroed count: its fixed cost per call.
        const ofdm_fft_io io{ dev.get(), std::size_t(n) * batch, out.get(),
                              std::size_t(n) * batch, 0, batch };
        const auto ours_ns = [&](fft_fusion fusion, bool waits, std::string& note) {
            try {
                gpu_ofdm_fft ours(plain(n, sample_format::fc32), { 0 }, batch, 1, fusion);
                if (ours.path() != fusion) {
                    note = ours.fusion_note();
                    return -1.0;
                }
                if (waits)
                    return timed([&] { ours.process_device(io); }) / batch;
                return timed([&] { ours.enqueue_device(io, nullptr); }) / batch;
            } catch (const std::exception& e) {
                note = e.what();
                return -1.0;
            }
        };
        std::printf("\non the device, 512 points, fc32 in and out: plain cuFFT %.3f ns/FFT",
                    plain_ns);
        const std::pair<fft_fusion, const char*> paths[] = {
            { fft_fusion::single_pass, "single-pass transform (ours)" },
            { fft_fusion::callbacks, "cuFFT with the conversions as callbacks" },
            { fft_fusion::kernels, "conversion kernels around cuFFT" }
        };
        for (const auto& [fusion, name] : paths) {
            std::string note;
            const double ns = ours_ns(fusion, false, note);
            if (ns > 0)
                std::printf("; %s %.3f ns/FFT (%.2fx cuFFT%s)",
                            name,
                            ns,
                            ns / plain_ns,
                            fusion == fft_fusion::single_pass ? "; goal <= 1.1x" : "");
            else
                std::printf("; %s not run (%s)", name, note.c_str());
        }
        std::string note;
        const double waited = ours_ns(fft_fusion::single_pass, true, note);
        if (waited > 0)
            std::printf("; single pass through process_device (waits for its count) %.3f "
                        "ns/FFT (%.1f us a call more)",
                        waited,
                        (waited - ours_ns(fft_fusion::single_pass, false, note)) * batch / 1e3);
        std::printf("; device copy ceiling %.3f ns/FFT\n",
                    1e9 * 2 * fc32_bytes / (cl.d2d * 1e9));
    }
    cufftDestroy(plan);

    // 3. Sizes, 16 channels of sc16 (an N310 array), prefix n*9/128, fc16 out.
    std::printf("\n%-10s %10s %12s %12s %10s\n",
                "16 ch sc16",
                "ns/FFT",
                "Msym/s/ch",
                "Gsps in",
                "x 16x122.88");
    for (int size : { 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096 }) {
        ofdm_fft_config c;
        c.fft_len = size;
        c.channels = 16;
        c.cp_lengths = { size * 9 / 128 };
        c.input = sample_format::sc16;
        c.output = sample_format::fc16;
        c.shift = true;
        const std::size_t nsym =
            std::max<std::size_t>(16, (quick ? (1 << 22) : (1 << 24)) / (16 * size));
        const double ns = ofdm_host_to_host(c, nsym, { 0 }, 0, runs);
        const double gsps = (size + c.cp_lengths[0]) / ns; // per FFT's time samples
        std::printf("%-10d %10.2f %12.2f %12.2f %10.2f\n",
                    size,
                    ns,
                    1e3 / ns / 16,
                    gsps,
                    gsps / (16 * 0.12288));
    }
    std::printf(
        "\nGsps: complex time samples per ns (host to host); x 16x122.88: multiple of "
        "an N310 array's 16 channels at 122.88 Msample/s.\n");
    return 0;
}
