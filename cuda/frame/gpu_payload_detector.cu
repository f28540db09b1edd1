/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Payload detection on the GPU (core/frame/payload_detector.h): the regrouping the host
 * engine does on the CPU, as kernels around gpu_detector::detect_device, so that a run's
 * carriers go in and its LLRs come out in the frame's order with one copy each way.
 *
 * Device layouts of a chunk of n <= max_symbols symbols:
 *   carriers [rx][symbol][used carrier]
 *   h_data   [data carrier][rx][tx],  noise_data [data carrier]
 *   bad      [symbol]                  (1: an unusable value on a data carrier)
 *   y        [data carrier][symbol][rx]   (carrier-major: group = n)
 *   detected [data carrier][symbol][bit], llr [symbol][data carrier][bit]
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/gpu_math.cuh"
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/frame/carrier_major.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;

namespace {

constexpr int kThreads = 256;
// Symbols per chunk: the run's carriers of a chunk on the device at once (2.4 MB for
// four antennas of 1200 carriers); longer runs go in several chunks.
constexpr std::size_t kMaxSymbols = 64;

unsigned blocks_for(std::size_t n)
{
    return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 1u << 20));
}

// The detectors' H and N0 on the data carriers only.
__global__ void select_data_carriers_kernel(const float2* h,
                                            const float* noise,
                                            const int* data,
                                            int D,
                                            int m,
                                            float2* h_data,
                                            float* noise_data)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(D) * m)
        return;
    const std::size_t d = i / m, e = i % m;
    h_data[i] = h[std::size_t(data[d]) * m + e];
    if (e == 0)
        noise_data[d] = noise[data[d]];
}

// bad[s] = 1 where symbol s holds an unusable value on a data carrier of any antenna
// (bad zeroed before).
__global__ void mark_unusable_kernel(const float2* carriers,
                                     const int* data,
                                     int rx,
                                     int n,
                                     int D,
                                     int U,
                                     int* bad)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(rx) * n * D)
        return;
    const std::size_t d = i % D, rs = i / D; // rs = r * n + s
    if (!gc::usable2(carriers[rs * U + data[d]]))
        bad[rs % n] = 1;
}

// y[d][s][r] = data carrier d of symbol s on antenna r; an erased symbol's are 0.
__global__ void gather_kernel(const float2* carriers,
                              const int* data,
                              const int* bad,
                              int rx,
                              int n,
                              int D,
                              int U,
                              float2* y)
{
    const core::carrier_major order{ std::size_t(D), std::size_t(n) };
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= order.vectors())
        return;
    const std::size_t s = v % order.symbols, d = v / order.symbols; // v = detector_vector(d, s)
    for (int r = 0; r < rx; r++)
        y[v * rx + r] = bad[s] ? make_float2(0, 0)
                               : carriers[(std::size_t(r) * n + s) * U + data[d]];
}

// Back to the frame's order; erased symbols and non-finite LLRs leave as 0.
__global__ void scatter_kernel(const float* detected, const int* bad, int n, int D, int bits, float* llr)
{
    const core::carrier_major order{ std::size_t(D), std::size_t(n) };
    const std::size_t total = order.vectors() * bits;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int b = int(i % bits);
        const std::size_t v = i / bits; // = order.frame_vector(d, s)
        const std::size_t d = v % order.carriers, s = v / order.carriers;
        const float x = detected[order.detector_vector(d, s) * bits + b];
        llr[i] = bad[s] || !isfinite(x) ? 0.0f : x;
    }
}

class gpu_payload_detector : public payload_detector
{
public:
    explicit gpu_payload_detector(const payload_detector_config& c)
        : d_device(c.detector.device),
          d_used(std::size_t(c.num.used_carriers)),
          d_nt(c.detector.nt),
          d_nr(c.detector.nr),
          d_data(data_carriers(c.num)),
          d_detector(c.detector.spec.algo(), c.detector.mod, c.detector.nt, c.detector.nr,
                     c.detector.spec.params(), c.detector.device,
                     c.detector.double_precision ? gpu_precision::double_ : gpu_precision::single),
          d_bits(std::size_t(d_detector.bits_per_vector()))
    {
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const std::size_t D = d_data.size(), m = std::size_t(d_nr) * d_nt;
        d_stream = std::make_unique<gc::stream>();
        d_data_dev = gc::upload(d_data);
        d_carriers = gc::device_buffer<float2>(std::size_t(d_nr) * kMaxSymbols * d_used);
        d_stage = gc::pinned_buffer<float2>(std::size_t(d_nr) * kMaxSymbols * d_used);
        d_h = gc::device_buffer<float2>(d_used * m);
        d_noise = gc::device_buffer<float>(d_used);
        d_h_data = gc::device_buffer<float2>(D * m);
        d_noise_data = gc::device_buffer<float>(D);
        d_bad = gc::device_buffer<int>(kMaxSymbols);
        d_host_bad = gc::pinned_buffer<int>(kMaxSymbols);
        d_y = gc::device_buffer<float2>(D * kMaxSymbols * d_nr);
        d_detected = gc::device_buffer<float>(D * kMaxSymbols * d_bits);
        d_llr = gc::device_buffer<float>(D * kMaxSymbols * d_bits);
        d_host_llr = gc::pinned_buffer<float>(D * kMaxSymbols * d_bits);
    }
    const char* backend() const override { return "cuda"; }
    std::size_t llrs_per_symbol() const override { return d_data.size() * d_bits; }

    std::size_t detect(const payload_run& run, float* llr, std::uint8_t* erased) override
    {
        if (run.symbols == 0)
            return 0;
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const cudaStream_t st = d_stream->get();
        const int D = int(d_data.size()), m = d_nr * d_nt;
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_h.get(), run.h, d_used * m * sizeof(float2),
                                           cudaMemcpyHostToDevice, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_noise.get(), run.noise, d_used * sizeof(float),
                                           cudaMemcpyHostToDevice, st));
        select_data_carriers_kernel<<<blocks_for(std::size_t(D) * m), kThreads, 0, st>>>(
            d_h.get(), d_noise.get(), d_data_dev.get(), D, m, d_h_data.get(), d_noise_data.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("select_data_carriers_kernel");
        std::size_t count = 0;
        for (std::size_t first = 0; first < run.symbols; first += kMaxSymbols) {
            const std::size_t n = std::min(kMaxSymbols, run.symbols - first);
            count += detect_chunk(run, first, n, llr + first * llrs_per_symbol(), erased + first, st);
        }
        return count;
    }

private:
    std::size_t detect_chunk(const payload_run& run,
                             std::size_t first,
                             std::size_t n,
                             float* out,
                             std::uint8_t* erased,
                             cudaStream_t st)
    {
        const int D = int(d_data.size()), U = int(d_used);
        const std::size_t per_antenna = n * d_used;
        for (int r = 0; r < d_nr; r++)
            gc::copy_to_device_async(d_carriers.get() + r * per_antenna,
                                     run.carriers[r] + first * d_used,
                                     per_antenna * sizeof(float2),
                                     d_stage.get() + r * per_antenna, st);
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_bad.get(), 0, n * sizeof(int), st));
        mark_unusable_kernel<<<blocks_for(std::size_t(d_nr) * n * D), kThreads, 0, st>>>(
            d_carriers.get(), d_data_dev.get(), d_nr, int(n), D, U, d_bad.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("mark_unusable_kernel");
        gather_kernel<<<blocks_for(std::size_t(D) * n), kThreads, 0, st>>>(
            d_carriers.get(), d_data_dev.get(), d_bad.get(), d_nr, int(n), D, U, d_y.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("gather_kernel");
        mimo_batch b;
        b.y = reinterpret_cast<const cf32*>(d_y.get());
        b.h = reinterpret_cast<const cf32*>(d_h_data.get());
        b.noise_var = d_noise_data.get();
        b.scalar_noise = false;
        b.batch = std::size_t(D) * n;
        b.nt = d_nt;
        b.nr = d_nr;
        b.group = n;
        d_detector.detect_device(b, d_detected.get(), st);
        scatter_kernel<<<blocks_for(std::size_t(D) * n * d_bits), kThreads, 0, st>>>(
            d_detected.get(), d_bad.get(), int(n), D, int(d_bits), d_llr.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("scatter_kernel");
        // Straight into the caller's page-locked output (a block's registered stream
        // buffer), else through the pinned buffer.
        const std::size_t bytes = n * llrs_per_symbol() * sizeof(float);
        const bool direct = gc::is_pinned_range(out, bytes);
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(direct ? static_cast<void*>(out) : d_host_llr.get(),
                                           d_llr.get(), bytes, cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_host_bad.get(), d_bad.get(), n * sizeof(int),
                                           cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
        d_detector.check_device_errors(st); // a vector beyond its model: invalid_argument
        if (!direct)
            std::memcpy(out, d_host_llr.get(), bytes);
        std::size_t count = 0;
        for (std::size_t s = 0; s < n; s++) {
            erased[s] = d_host_bad.get()[s] ? 1 : 0;
            count += erased[s];
        }
        return count;
    }

    const int d_device;
    const std::size_t d_used;
    const int d_nt, d_nr;
    const std::vector<int> d_data;
    gpu_detector d_detector;
    const std::size_t d_bits;
    std::unique_ptr<gc::stream> d_stream;
    gc::device_buffer<int> d_data_dev, d_bad;
    gc::device_buffer<float2> d_carriers, d_h, d_h_data, d_y;
    gc::device_buffer<float> d_noise, d_noise_data, d_detected, d_llr;
    gc::pinned_buffer<float2> d_stage;
    gc::pinned_buffer<int> d_host_bad;
    gc::pinned_buffer<float> d_host_llr;
};

} // namespace

namespace detail {
std::unique_ptr<payload_detector> make_gpu_payload_detector(const payload_detector_config& config,
                                                            std::string* why)
{
    const detector_config& d = config.detector;
    if (!gpu_supports(d.spec.algo(), d.mod, d.nt, d.nr, d.spec.params(), why))
        return nullptr;
    return std::make_unique<gpu_payload_detector>(config);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
