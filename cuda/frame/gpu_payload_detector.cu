/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Payload detection on the GPU (core/frame/payload_detector.h): the regrouping the host
 * engine does on the CPU, as kernels around gpu_detector::detect_device, so that a run's
 * carriers go in and its LLRs come out in the frame's order with one copy each way.
 *
 * A chunk is R pieces of n symbols each, R n <= kMaxSymbols: R runs of n symbols (whole
 * frames, mostly: one launch of each kernel for several frames), or n symbols of one
 * longer run. Device layouts of a chunk of N = R n symbols:
 *   carriers [rx][symbol][used carrier]          (piece j's symbols at j n)
 *   h_data   [piece][data carrier][rx][tx],  noise_data [piece][data carrier]
 *   bad      [symbol]                          (1: an unusable value on a data carrier)
 *   y        [piece][data carrier][symbol][rx]  (each piece carrier-major: group = n)
 *   detected [piece][data carrier][symbol][bit], llr [symbol][data carrier][bit]
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
// Symbols per chunk: the carriers of a chunk on the device at once (5.5 MB for four
// antennas of 1200 carriers), 16 frames of lte20's 9 payload symbols; longer runs go in
// several chunks.
constexpr std::size_t kMaxSymbols = 144;

unsigned blocks_for(std::size_t n)
{
    return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 1u << 20));
}

// The detectors' H and N0 on the data carriers only, for the runs of a wait at once
// (slot k from h[k] and noise[k], every used carrier's): one launch, not one a run
// (runs of one symbol each, frames tracked in time, made it 9 launches a frame).
__global__ void select_data_carriers_kernel(const float2* const* h,
                                            const float* const* noise,
                                            const int* data,
                                            int D,
                                            int m,
                                            int runs,
                                            float2* h_data,
                                            float* noise_data)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    const std::size_t per_run = std::size_t(D) * m;
    if (i >= per_run * runs)
        return;
    const std::size_t k = i / per_run, r = i % per_run, d = r / m, e = r % m;
    h_data[i] = h[k][std::size_t(data[d]) * m + e];
    if (e == 0)
        noise_data[k * D + d] = noise[k][data[d]];
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

// y[j][d][s][r] = data carrier d of piece j's symbol s on antenna r; an erased
// symbol's are 0. N = pieces n symbols.
__global__ void gather_kernel(const float2* carriers,
                              const int* data,
                              const int* bad,
                              int rx,
                              int n,
                              int pieces,
                              int D,
                              int U,
                              float2* y)
{
    const core::carrier_major order{ std::size_t(D), std::size_t(n) };
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= order.vectors() * pieces)
        return;
    const std::size_t j = v / order.vectors(), w = v % order.vectors();
    const std::size_t s = j * n + w % order.symbols, d = w / order.symbols; // w = detector_vector(d, s)
    const std::size_t N = std::size_t(pieces) * n;
    for (int r = 0; r < rx; r++)
        y[v * rx + r] = bad[s] ? make_float2(0, 0)
                               : carriers[(std::size_t(r) * N + s) * U + data[d]];
}

// Back to the frame's order (the pieces' symbols one after another); erased symbols and
// non-finite LLRs leave as 0.
__global__ void scatter_kernel(const float* detected, const int* bad, int n, int pieces, int D, int bits, float* llr)
{
    const core::carrier_major order{ std::size_t(D), std::size_t(n) };
    const std::size_t total = order.vectors() * pieces * bits;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int b = int(i % bits);
        const std::size_t v = i / bits; // symbol-major over the chunk's symbols
        const std::size_t d = v % order.carriers, s = v / order.carriers;
        const std::size_t j = s / n;
        const float x = detected[(j * order.vectors() + order.detector_vector(d, s % n)) * bits + b];
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
          d_bits(std::size_t(d_detector.bits_per_vector())),
          d_max_runs(runs_per_wait(d_data.size(), std::size_t(d_nr) * d_nt))
    {
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const std::size_t D = d_data.size(), m = std::size_t(d_nr) * d_nt;
        d_stream = std::make_unique<gc::stream>();
        d_data_dev = gc::upload(d_data);
        d_carriers = gc::device_buffer<float2>(std::size_t(d_nr) * kMaxSymbols * d_used);
        d_stage = gc::pinned_buffer<float2>(std::size_t(d_nr) * kMaxSymbols * d_used);
        d_h = gc::device_buffer<float2>(kMaxHostRuns * d_used * m);
        d_host_h = gc::pinned_buffer<float2>(kMaxHostRuns * d_used * m);
        d_noise = gc::device_buffer<float>(kMaxHostRuns * d_used);
        d_host_noise = gc::pinned_buffer<float>(kMaxHostRuns * d_used);
        d_h_data = gc::device_buffer<float2>(d_max_runs * D * m);
        d_noise_data = gc::device_buffer<float>(d_max_runs * D);
        d_host_channels = gc::pinned_buffer<const void*>(2 * d_max_runs);
        d_channels = gc::device_buffer<const void*>(2 * d_max_runs);
        d_bad = gc::device_buffer<int>(kMaxChunks * kMaxSymbols);
        d_host_bad = gc::pinned_buffer<int>(kMaxChunks * kMaxSymbols);
        d_y = gc::device_buffer<float2>(D * kMaxSymbols * d_nr);
        d_detected = gc::device_buffer<float>(D * kMaxSymbols * d_bits);
        d_llr = gc::device_buffer<float>(D * kMaxSymbols * d_bits);
        d_host_llr = gc::pinned_buffer<float>(D * kMaxSymbols * d_bits);
        d_pieces.reserve(d_max_runs); // a wait's: no allocation in detect_runs()
        d_landings.reserve(d_max_runs + kMaxChunks);
    }
    const char* backend() const override { return "cuda"; }
    std::size_t llrs_per_symbol() const override { return d_data.size() * d_bits; }
    std::uint64_t search_budget_hits() const override
    {
        return d_detector.search_budget_hits();
    }

    // One run: a round trip per chunk of kMaxSymbols symbols, the LLRs through the
    // page-locked buffer where the caller's are not page-locked.
    std::size_t detect(const payload_run& run, float* llr, std::uint8_t* erased) override
    {
        if (run.symbols == 0)
            return 0;
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const cudaStream_t st = d_stream->get();
        enqueue_channels(&run, 1, st);
        std::size_t count = 0;
        for (std::size_t first = 0; first < run.symbols; first += kMaxSymbols) {
            const std::size_t n = std::min(kMaxSymbols, run.symbols - first);
            float* out = llr + first * llrs_per_symbol();
            const std::size_t bytes = n * llrs_per_symbol() * sizeof(float);
            const bool direct = reaches_in_place(out, bytes);
            d_landings.clear();
            const piece p{ &run, 0, first, direct ? out : d_host_llr.get() };
            enqueue_chunk(&p, 1, n, 0, 0, st);
            GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
            d_detector.check_device_errors(st); // a vector beyond its model: invalid_argument
            if (!direct)
                std::memcpy(out, d_host_llr.get(), bytes);
            count += land_erased(d_landings[0], erased + first);
        }
        return count;
    }

    // Every run's chunks enqueued on the stream, one wait for them all (up to
    // d_max_runs runs, kMaxHostRuns of them with their channel in host memory, and
    // kMaxChunks chunks a wait), where the caller's carriers and LLRs need no
    // staging; runs of equal length one after another share a chunk (one launch of each
    // kernel for up to kMaxSymbols symbols). A refusal among them has each run of that
    // wait detected alone, to tell which.
    std::size_t detect_runs(const payload_run* runs,
                            std::size_t count,
                            float* const* llr,
                            std::uint8_t* const* erased,
                            std::uint8_t* refused,
                            std::string* why) override
    {
        if (count < 2 || !in_place(runs, count, llr))
            return payload_detector::detect_runs(runs, count, llr, erased, refused, why);
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const cudaStream_t st = d_stream->get();
        std::size_t erased_symbols = 0;
        for (std::size_t i0 = 0; i0 < count;) {
            std::size_t i1 = i0, chunks = 0, host = 0; // runs [i0, i1) in this wait
            while (i1 < count && i1 - i0 < d_max_runs &&
                   chunks + chunks_of(runs[i1]) <= kMaxChunks &&
                   host + (gc::is_device(runs[i1].h) ? 0 : 1) <= kMaxHostRuns) {
                host += gc::is_device(runs[i1].h) ? 0 : 1;
                chunks += chunks_of(runs[i1++]);
            }
            if (i1 == i0) // one run longer than a wait's chunks: alone
                i1 = i0 + 1;
            if (i1 - i0 == 1) {
                erased_symbols += payload_detector::detect_runs(runs + i0, i1 - i0, llr + i0,
                                                                erased + i0, refused + i0, why);
                i0 = i1;
                continue;
            }
            enqueue_wait(runs, i0, i1, llr, refused, st);
            GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
            try {
                d_detector.check_device_errors(st);
            } catch (const std::invalid_argument&) { // rare: which run it was
                erased_symbols += payload_detector::detect_runs(runs + i0, i1 - i0, llr + i0,
                                                                erased + i0, refused + i0, why);
                i0 = i1;
                continue;
            }
            for (const landing& l : d_landings)
                erased_symbols += land_erased(l, erased[i0 + l.run] + l.first);
            i0 = i1;
        }
        return erased_symbols;
    }

private:
    // n symbols of a run from its symbol `first`, their LLRs to `out`; `run` its index in
    // the wait (its channel slot).
    struct piece {
        const payload_run* from;
        std::size_t run, first;
        float* out;
    };
    // Where a piece's erased flags lie after the wait: host slot `chunk`, from `at`.
    struct landing {
        std::size_t run, first, n, chunk, at;
    };

    // Runs [i0, i1) enqueued: each run's channel into slot i - i0, runs of equal length
    // whose slots follow each other gathered into one chunk while it has room, longer
    // runs in chunks of their own; d_landings says where each piece's erased flags land.
    void enqueue_wait(const payload_run* runs,
                      std::size_t i0,
                      std::size_t i1,
                      float* const* llr,
                      std::uint8_t* refused,
                      cudaStream_t st)
    {
        d_landings.clear();
        d_pieces.clear();
        std::size_t c = 0, n = 0; // the gathered pieces' chunk and length
        const auto flush = [&] {
            if (!d_pieces.empty())
                enqueue_chunk(d_pieces.data(), d_pieces.size(), n, d_pieces[0].run, c++, st);
            d_pieces.clear();
        };
        enqueue_channels(runs + i0, i1 - i0, st); // every run's channel into its slot
        for (std::size_t i = i0; i < i1; i++) {
            refused[i] = 0;
            const payload_run& run = runs[i];
            if (run.symbols == 0)
                continue;
            const std::size_t k = i - i0;
            if (run.symbols <= kMaxSymbols) {
                const bool joins = !d_pieces.empty() && n == run.symbols &&
                                   d_pieces.back().run + 1 == k &&
                                   (d_pieces.size() + 1) * n <= kMaxSymbols;
                if (!joins) {
                    flush();
                    n = run.symbols;
                }
                d_pieces.push_back({ &run, k, 0, llr[i] });
                continue;
            }
            flush();
            for (std::size_t first = 0; first < run.symbols; first += kMaxSymbols) {
                const piece p{ &run, k, first, llr[i] + first * llrs_per_symbol() };
                enqueue_chunk(&p, 1, std::min(kMaxSymbols, run.symbols - first), k, c++, st);
            }
        }
        flush();
    }

    static std::size_t chunks_of(const payload_run& run)
    {
        return (run.symbols + kMaxSymbols - 1) / kMaxSymbols;
    }

    static bool reaches_in_place(const void* p, std::size_t bytes)
    {
        return gc::is_device(p) || gc::is_pinned_range(p, bytes);
    }

    // Whether every run's carriers and LLRs are device or page-locked memory: the copies
    // of several chunks then share no staging buffer and can all be in flight.
    bool in_place(const payload_run* runs, std::size_t count, float* const* llr) const
    {
        for (std::size_t i = 0; i < count; i++) {
            if (runs[i].symbols == 0)
                continue;
            if (!reaches_in_place(llr[i], runs[i].symbols * llrs_per_symbol() * sizeof(float)))
                return false;
            for (int r = 0; r < d_nr; r++)
                if (!reaches_in_place(runs[i].carriers[r], runs[i].symbols * d_used * sizeof(float2)))
                    return false;
        }
        return true;
    }

    // Runs' data carriers' H and N0 into channel slots 0 .. count - 1, one launch for
    // them all: selected straight from each run's where they lie on the device
    // (mimo_chanest's estimate records between GPU blocks), else from a copy through
    // page-locked memory (the caller's may change once this returns; at most
    // kMaxHostRuns such runs). A run without symbols gets a slot no chunk reads.
    void enqueue_channels(const payload_run* runs, std::size_t count, cudaStream_t st)
    {
        const int D = int(d_data.size()), m = d_nr * d_nt;
        const std::size_t h_values = d_used * std::size_t(m);
        const void** table = d_host_channels.get(); // [h of every slot][noise of every slot]
        std::size_t staged = 0;
        for (std::size_t k = 0; k < count; k++) {
            const payload_run& run = runs[k];
            const void* h = run.h;
            const void* noise = run.noise;
            if (run.symbols == 0) { // no chunk reads its slot: any device memory will do
                h = d_h.get();
                noise = d_noise.get();
            } else if (!gc::is_device(h)) {
                float2* host_h = d_host_h.get() + staged * h_values;
                float* host_noise = d_host_noise.get() + staged * d_used;
                std::memcpy(host_h, h, h_values * sizeof(float2));
                std::memcpy(host_noise, noise, d_used * sizeof(float));
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_h.get() + staged * h_values, host_h,
                                                   h_values * sizeof(float2), cudaMemcpyHostToDevice, st));
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_noise.get() + staged * d_used, host_noise,
                                                   d_used * sizeof(float), cudaMemcpyHostToDevice, st));
                h = d_h.get() + staged * h_values;
                noise = d_noise.get() + staged * d_used;
                staged++;
            }
            table[k] = h;
            table[count + k] = noise;
        }
        if (count == 0)
            return;
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_channels.get(), table, 2 * count * sizeof(const void*),
                                           cudaMemcpyHostToDevice, st));
        const auto* h = reinterpret_cast<const float2* const*>(d_channels.get());
        const auto* noise = reinterpret_cast<const float* const*>(d_channels.get() + count);
        select_data_carriers_kernel<<<blocks_for(count * std::size_t(D) * m), kThreads, 0, st>>>(
            h, noise, d_data_dev.get(), D, m, int(count), d_h_data.get(), d_noise_data.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("select_data_carriers_kernel");
    }

    // `pieces` pieces of n symbols each as one chunk (their channels in slots k0,
    // k0 + 1, ...): their LLRs to each piece's `out` (device or page-locked), their
    // erased flags to host slot c (d_landings says where); nothing waited for. The
    // chunk buffers are reused by the next chunk in stream order.
    void enqueue_chunk(const piece* pieces,
                       std::size_t count,
                       std::size_t n,
                       std::size_t k0,
                       std::size_t c,
                       cudaStream_t st)
    {
        const int D = int(d_data.size()), U = int(d_used), m = d_nr * d_nt;
        const std::size_t N = count * n, per_antenna = N * d_used, piece_values = n * d_used;
        // Each antenna's carriers in, one copy for pieces that follow each other in the
        // caller's buffer (a stream buffer's frames, mostly).
        const auto source = [&](std::size_t j, int r) {
            return pieces[j].from->carriers[r] + pieces[j].first * d_used;
        };
        for (int r = 0; r < d_nr; r++)
            for (std::size_t j0 = 0; j0 < count;) {
                std::size_t j1 = j0 + 1;
                while (j1 < count && source(j1, r) == source(j1 - 1, r) + piece_values)
                    j1++;
                const std::size_t at = r * per_antenna + j0 * piece_values;
                gc::copy_to_device_async(d_carriers.get() + at, source(j0, r),
                                         (j1 - j0) * piece_values * sizeof(float2), d_stage.get() + at, st);
                j0 = j1;
            }
        int* bad = d_bad.get() + c * kMaxSymbols;
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(bad, 0, N * sizeof(int), st));
        mark_unusable_kernel<<<blocks_for(std::size_t(d_nr) * N * D), kThreads, 0, st>>>(
            d_carriers.get(), d_data_dev.get(), d_nr, int(N), D, U, bad);
        GPUMIMO_CUDA_CHECK_LAUNCH("mark_unusable_kernel");
        gather_kernel<<<blocks_for(std::size_t(D) * N), kThreads, 0, st>>>(
            d_carriers.get(), d_data_dev.get(), bad, d_nr, int(n), int(count), D, U, d_y.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("gather_kernel");
        mimo_batch b;
        b.y = reinterpret_cast<const cf32*>(d_y.get());
        b.h = reinterpret_cast<const cf32*>(d_h_data.get() + k0 * std::size_t(D) * m);
        b.noise_var = d_noise_data.get() + k0 * std::size_t(D);
        b.scalar_noise = false;
        b.batch = std::size_t(D) * N;
        b.nt = d_nt;
        b.nr = d_nr;
        b.group = n;
        d_detector.detect_device(b, d_detected.get(), st);
        scatter_kernel<<<blocks_for(std::size_t(D) * N * d_bits), kThreads, 0, st>>>(
            d_detected.get(), bad, int(n), int(count), D, int(d_bits), d_llr.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("scatter_kernel");
        // The LLRs out, one copy for pieces whose outputs follow each other.
        const std::size_t piece_llrs = n * llrs_per_symbol();
        for (std::size_t j0 = 0; j0 < count;) {
            std::size_t j1 = j0 + 1;
            while (j1 < count && pieces[j1].out == pieces[j1 - 1].out + piece_llrs)
                j1++;
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(pieces[j0].out, d_llr.get() + j0 * piece_llrs,
                                               (j1 - j0) * piece_llrs * sizeof(float),
                                               cudaMemcpyDefault, st));
            j0 = j1;
        }
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_host_bad.get() + c * kMaxSymbols, bad, N * sizeof(int),
                                           cudaMemcpyDeviceToHost, st));
        for (std::size_t j = 0; j < count; j++)
            d_landings.push_back({ pieces[j].run, pieces[j].first, n, c, j * n });
    }

    // A waited-for piece's erased flags to the caller; their count.
    std::size_t land_erased(const landing& l, std::uint8_t* erased) const
    {
        std::size_t count = 0;
        const int* bad = d_host_bad.get() + l.chunk * kMaxSymbols + l.at;
        for (std::size_t s = 0; s < l.n; s++) {
            erased[s] = bad[s] ? 1 : 0;
            count += erased[s];
        }
        return count;
    }

    // Chunks one wait of detect_runs() holds at most, and runs whose channel it copies
    // from host memory.
    static constexpr std::size_t kMaxChunks = 32, kMaxHostRuns = 16;

    // Runs one wait holds: a chunk's worth of one-symbol runs (frames tracked in time:
    // a run a symbol) where their channels' slots take at most 32 MB, at least 16.
    static std::size_t runs_per_wait(std::size_t data_carriers, std::size_t m)
    {
        const std::size_t slot_bytes = data_carriers * (m * sizeof(float2) + sizeof(float));
        return std::clamp<std::size_t>((std::size_t(32) << 20) / slot_bytes, kMaxHostRuns, kMaxSymbols);
    }

    const int d_device;
    const std::size_t d_used;
    const int d_nt, d_nr;
    const std::vector<int> d_data;
    gpu_detector d_detector;
    const std::size_t d_bits;
    const std::size_t d_max_runs; // runs a wait holds
    std::unique_ptr<gc::stream> d_stream;
    gc::device_buffer<int> d_data_dev, d_bad;
    gc::device_buffer<float2> d_carriers, d_h, d_h_data, d_y;
    gc::device_buffer<float> d_noise, d_noise_data, d_detected, d_llr;
    gc::pinned_buffer<float2> d_stage, d_host_h;
    gc::pinned_buffer<int> d_host_bad;
    gc::pinned_buffer<float> d_host_llr, d_host_noise;
    gc::pinned_buffer<const void*> d_host_channels; // a wait's channels: [h][noise] per slot
    gc::device_buffer<const void*> d_channels;      // the same on the device
    std::vector<piece> d_pieces;       // a chunk's, being gathered
    std::vector<landing> d_landings;   // a wait's pieces
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
