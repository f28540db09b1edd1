/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The batched LDPC decoder (core::gpu_ldpc_decoder). min_sum and sum_product: the kernel
 * below; min_sum_half: min_sum_half_kernel.cuh (two codewords a block, half2).
 *
 * One thread block per codeword: its
 * a-posteriori LLRs (n floats) and check messages (one per edge) live in shared memory
 * for the whole decode; the block walks the code's layers in order, a thread per check
 * of the layer (no two share a bit, so no two threads touch the same LLR), a barrier
 * after each layer. After an iteration the block checks the syndrome of its decisions
 * (__syncthreads_or) and stops early as the CPU reference does.
 *
 * Min-sum repeats lib/core/ldpc/ldpc_internal.h's arithmetic with __fsub_rn, __fadd_rn and
 * __fmul_rn, which the compiler may not contract into fused multiply-adds: the same
 * bits as the CPU reference. The code's structure (check offsets, bit lists, layer
 * lists) is read through the read-only cache, shared by every block.
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "detail/gpu_engines.h"
#include "ldpc/channel_llr.cuh"
#include "ldpc/min_sum_half_kernel.cuh"

#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

struct code_view {
    int n;
    int layers;
    const int* __restrict__ layer_offset; // layer l's checks: layer_check[layer_offset[l] ..)
    const int* __restrict__ layer_check;
    const int* __restrict__ edge_offset;  // check c's edges: [edge_offset[c], edge_offset[c + 1])
    const int* __restrict__ edge_bit;     // the bit of each edge
    int m;
};

struct decode_params {
    int max_iterations;
    bool early_termination;
    bool min_sum;
    float normalisation, offset;
    float int8_scale;
};

using ldpc_device::channel_llr;

// As ldpc_detail::phi (ldpc_internal.h): ln(1 + 2 / (e^x - 1)) for x from 8e-18 (the
// floor), 0 from 40 (the cap) on.
__device__ float phi(float x)
{
    return x >= 40.0f ? 0.0f : log1pf(2.0f / expm1f(fmaxf(x, 8e-18f)));
}

__device__ void min_sum_check(float* app, float* msg, const int* bits, int deg, const decode_params& p)
{
    float min1 = INFINITY, min2 = INFINITY;
    int at = 0;
    bool negative = false;
    for (int j = 0; j < deg; j++) {
        const float t = __fsub_rn(app[bits[j]], msg[j]);
        const float a = fabsf(t);
        negative ^= t < 0.0f;
        if (a < min1) {
            min2 = min1;
            min1 = a;
            at = j;
        } else if (a < min2) {
            min2 = a;
        }
    }
    const float m1 = fminf(__fmul_rn(fmaxf(__fsub_rn(min1, p.offset), 0.0f), p.normalisation), ldpc_llr_saturation);
    const float m2 = fminf(__fmul_rn(fmaxf(__fsub_rn(min2, p.offset), 0.0f), p.normalisation), ldpc_llr_saturation);
    for (int j = 0; j < deg; j++) {
        const int v = bits[j];
        const float t = __fsub_rn(app[v], msg[j]);
        const float mag = j == at ? m2 : m1;
        const float r = (negative != (t < 0.0f)) ? -mag : mag;
        msg[j] = r;
        app[v] = __fadd_rn(t, r);
    }
}

// As ldpc_detail::sum_product_messages: the sums excluding bit j from a prefix and a
// suffix; the suffix recomputed per bit (degrees are small) instead of stored.
__device__ void sum_product_check(float* app, float* msg, const int* bits, int deg)
{
    constexpr int max_deg = 32;
    float t[max_deg], f[max_deg], suffix[max_deg + 1];
    bool negative = false;
    for (int j = 0; j < deg; j++) {
        t[j] = __fsub_rn(app[bits[j]], msg[j]);
        f[j] = phi(fabsf(t[j]));
        negative ^= t[j] < 0.0f;
    }
    suffix[deg] = 0.0f;
    for (int j = deg - 1; j >= 0; j--)
        suffix[j] = __fadd_rn(suffix[j + 1], f[j]);
    float prefix = 0.0f;
    for (int j = 0; j < deg; j++) {
        const float mag = phi(__fadd_rn(prefix, suffix[j + 1]));
        const float r = (negative != (t[j] < 0.0f)) ? -mag : mag;
        msg[j] = r;
        app[bits[j]] = __fadd_rn(t[j], r);
        prefix = __fadd_rn(prefix, f[j]);
    }
}

template <typename In>
__global__ void ldpc_decode_kernel(const In* __restrict__ llr,
                                   code_view code,
                                   decode_params p,
                                   float* __restrict__ app_out,
                                   std::uint8_t* __restrict__ bits_out,
                                   int* __restrict__ iterations_out,
                                   std::uint8_t* __restrict__ satisfied_out,
                                   unsigned* __restrict__ satisfied_count)
{
    extern __shared__ float shared[];
    const int n = code.n;
    const int edges = code.edge_offset[code.m];
    float* app = shared;     // n
    float* msg = shared + n; // edges
    const std::size_t frame = blockIdx.x;
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
        if constexpr (sizeof(In) == 1)
            app[v] = channel_llr(llr[frame * n + v], p.int8_scale);
        else
            app[v] = channel_llr(llr[frame * n + v]);
    }
    for (int e = threadIdx.x; e < edges; e += blockDim.x)
        msg[e] = 0.0f;
    __syncthreads();

    int iterations = 0;
    bool ok = false;
    for (int it = 0; it < p.max_iterations; it++) {
        for (int l = 0; l < code.layers; l++) {
            const int first = code.layer_offset[l], last = code.layer_offset[l + 1];
            for (int i = first + int(threadIdx.x); i < last; i += blockDim.x) {
                const int c = code.layer_check[i];
                const int e0 = code.edge_offset[c], deg = code.edge_offset[c + 1] - e0;
                if (p.min_sum)
                    min_sum_check(app, msg + e0, code.edge_bit + e0, deg, p);
                else
                    sum_product_check(app, msg + e0, code.edge_bit + e0, deg);
            }
            __syncthreads();
        }
        iterations = it + 1;
        if (p.early_termination || it + 1 == p.max_iterations) {
            int unsatisfied = 0;
            for (int c = threadIdx.x; c < code.m; c += blockDim.x) {
                unsigned parity = 0;
                for (int e = code.edge_offset[c]; e < code.edge_offset[c + 1]; e++)
                    parity ^= app[code.edge_bit[e]] < 0.0f;
                unsatisfied |= int(parity);
            }
            ok = !__syncthreads_or(unsatisfied);
            if (ok) { // decoded only with no bit undecided (an LLR of exactly 0), as the
                      // CPU reference; looked for once the checks hold (ok is the block's)
                int undecided = 0;
                for (int v = threadIdx.x; v < n; v += blockDim.x)
                    undecided |= int(!ldpc_device::decided(app[v]));
                ok = !__syncthreads_or(undecided);
            }
            if (ok && p.early_termination)
                break;
        }
    }
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
        const float a = app[v];
        if (app_out)
            app_out[frame * n + v] = -a;
        if (bits_out)
            bits_out[frame * n + v] = a < 0.0f;
    }
    if (threadIdx.x == 0) {
        if (iterations_out)
            iterations_out[frame] = iterations;
        if (satisfied_out)
            satisfied_out[frame] = ok;
        if (ok)
            atomicAdd(satisfied_count, 1u);
    }
}

} // namespace

// The min_sum_half kernel unrolled for checks of degree up to D (8, 16, 32 or 64).
template <typename In>
using half_kernel_fn = void (*)(const In*, std::size_t, half_ldpc::code_view, half_ldpc::params,
                                float*, std::uint8_t*, int*, std::uint8_t*, unsigned*);
constexpr int max_half_degree = 64;
constexpr int max_half_bits = 65536 / sizeof(__half2); // byte offsets in 16 bits (code_view)
int half_unroll(int max_degree)
{
    return max_degree <= 8 ? 8 : max_degree <= 16 ? 16 : max_degree <= 32 ? 32 : 64;
}
template <typename In>
half_kernel_fn<In> half_kernel(int unroll)
{
    switch (unroll) {
    case 8:
        return half_ldpc::decode_kernel<8, In>;
    case 16:
        return half_ldpc::decode_kernel<16, In>;
    case 32:
        return half_ldpc::decode_kernel<32, In>;
    default:
        return half_ldpc::decode_kernel<64, In>;
    }
}

// The code's structure as the float kernel reads it: the checks of each layer, each
// check's edges and their bits.
struct edge_structure {
    std::vector<int> layer_check, edge_offset{ 0 }, edge_bit;
};
edge_structure edges_of(const ldpc_code& code)
{
    edge_structure e;
    for (const auto& layer : code.layers)
        e.layer_check.insert(e.layer_check.end(), layer.begin(), layer.end());
    for (const auto& check : code.checks) {
        e.edge_bit.insert(e.edge_bit.end(), check.begin(), check.end());
        e.edge_offset.push_back(int(e.edge_bit.size()));
    }
    return e;
}

// As min_sum_half_kernel.cuh reads it (code_view): the bits layer by layer, edge j of
// every check of the layer, then j + 1 (slots of checks with fewer edges left unused);
// the messages check by check, d | 1 slots for a check of degree d.
struct slot_structure {
    std::vector<int> slot_base;
    std::vector<unsigned> check_info;
    std::vector<std::uint16_t> slot_bit;
    int message_slots = 0;
};
slot_structure slots_of(const ldpc_code& code)
{
    slot_structure s;
    for (const auto& layer : code.layers) {
        std::size_t deg = 0;
        for (const int c : layer)
            deg = std::max(deg, code.checks[std::size_t(c)].size());
        s.slot_base.push_back(int(s.slot_bit.size()));
        const std::size_t width = layer.size(), base = s.slot_bit.size();
        s.slot_bit.resize(base + deg * width, 0);
        for (std::size_t i = 0; i < width; i++) {
            const auto& bits = code.checks[std::size_t(layer[i])];
            s.check_info.push_back(unsigned(s.message_slots) << 8 | unsigned(bits.size()));
            s.message_slots += int(bits.size()) | 1; // an odd stride (code_view)
            for (std::size_t j = 0; j < bits.size(); j++)
                s.slot_bit[base + j * width + i] = std::uint16_t(bits[j] * sizeof(__half2)); // byte offset
        }
    }
    return s;
}

// The host pipeline's chunks: a quarter of the batch, at least this many codewords (a
// chunk under a few hundred blocks leaves the GPU part idle).
constexpr std::size_t min_chunk_frames = 512;

struct gpu_ldpc_decoder::impl {
    int device;
    std::size_t max_frames;
    int n, m, layers, threads;
    std::size_t shared_bytes;
    decode_params params{};
    cuda::device_buffer<int> layer_offset;
    cuda::device_buffer<int> layer_check, edge_offset, edge_bit; // min_sum, sum_product
    // min_sum_half: the slot layout (min_sum_half_kernel.cuh) and its unrolled degree.
    bool half = false;
    int half_degree = 8, message_slots = 0;
    half_ldpc::params half_params{};
    cuda::device_buffer<int> slot_base;
    cuda::device_buffer<unsigned> check_info;
    cuda::device_buffer<std::uint16_t> slot_bit;
    // Staging for host-to-host decodes: inputs and every output kind, device and pinned.
    cuda::device_buffer<float> llr_f, app;
    cuda::device_buffer<std::int8_t> llr_q;
    cuda::device_buffer<std::uint8_t> bits, satisfied;
    cuda::device_buffer<int> iterations;
    cuda::device_buffer<unsigned> count;
    cuda::pinned_buffer<unsigned> count_host;
    cuda::stream stream, stream2; // stream2: the host pipeline's second
    cuda::event start{ true }, stop{ true }, fork, join;
    bool timed = false; // the events hold a launch to measure
    float kernel_ms = 0;

    impl(const ldpc_code& code, const ldpc_decoder_config& config, std::size_t max_frames_, int device_)
        : device(device_), max_frames(max_frames_), n(code.n), m(code.m)
    {
        config.validate();
        if (code.layers.empty() || code.bits.size() != std::size_t(code.n))
            throw std::invalid_argument("gpu_ldpc_decoder: the code is not finished "
                                        "(finish_ldpc_code)");
        if (max_frames == 0 || max_frames > (1u << 30))
            throw std::invalid_argument("gpu_ldpc_decoder: max_frames must be 1 to 2^30");
        if (config.algorithm == ldpc_algorithm::sum_product && code.max_check_degree() > 32)
            throw std::invalid_argument("gpu_ldpc_decoder: sum-product takes checks of "
                                        "degree up to 32");
        half = config.algorithm == ldpc_algorithm::min_sum_half;
        if (half && code.max_check_degree() > max_half_degree)
            throw std::invalid_argument("gpu_ldpc_decoder: min_sum_half takes checks of degree "
                                        "up to " + std::to_string(max_half_degree) + ", this code has " +
                                        std::to_string(code.max_check_degree()));
        if (half && code.n > max_half_bits)
            throw std::invalid_argument("gpu_ldpc_decoder: min_sum_half takes codes of up to " +
                                        std::to_string(max_half_bits) + " bits (its structure "
                                        "holds 16-bit offsets), this code has " +
                                        std::to_string(code.n));
        params.max_iterations = config.max_iterations;
        params.early_termination = config.early_termination;
        params.min_sum = config.algorithm == ldpc_algorithm::min_sum;
        params.normalisation = config.normalisation;
        params.offset = config.offset;

        std::vector<int> h_layer_offset{ 0 };
        std::size_t widest = 0;
        for (const auto& layer : code.layers) {
            h_layer_offset.push_back(h_layer_offset.back() + int(layer.size()));
            widest = std::max(widest, layer.size());
        }
        layers = int(code.layers.size());
        // A thread per check of the widest layer, in whole warps, at most 1024.
        threads = int(std::min<std::size_t>(1024, (widest + 31) / 32 * 32));

        // Only the chosen kernel's structure is built: float, a float per bit and per
        // edge; half, two codewords per block, a __half2 per bit and per slot.
        edge_structure edges;
        slot_structure slot_layout;
        if (half) {
            slot_layout = slots_of(code);
            message_slots = slot_layout.message_slots;
            half_degree = half_unroll(code.max_check_degree());
            half_params = { config.max_iterations, config.early_termination, config.normalisation,
                            config.offset, 0.0f, ldpc_half_saturation };
            shared_bytes = (std::size_t(n) + std::size_t(message_slots)) * sizeof(__half2);
        } else {
            edges = edges_of(code);
            shared_bytes = (std::size_t(n) + edges.edge_bit.size()) * sizeof(float);
        }

        cuda::device_guard guard;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        int optin = 0;
        GPUMIMO_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        if (shared_bytes > std::size_t(optin))
            throw std::invalid_argument(
                "gpu_ldpc_decoder: the code's LLRs and messages need " +
                std::to_string(shared_bytes) + " bytes of shared memory, the device gives a "
                "block at most " + std::to_string(optin));
        const void* float_in = half ? (const void*)half_kernel<float>(half_degree)
                                    : (const void*)ldpc_decode_kernel<float>;
        const void* int8_in = half ? (const void*)half_kernel<std::int8_t>(half_degree)
                                   : (const void*)ldpc_decode_kernel<std::int8_t>;
        for (const void* k : { float_in, int8_in })
            GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
                k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));

        layer_offset = cuda::upload(h_layer_offset);
        if (half) {
            slot_base = cuda::upload(slot_layout.slot_base);
            check_info = cuda::upload(slot_layout.check_info);
            slot_bit = cuda::upload(slot_layout.slot_bit);
        } else {
            layer_check = cuda::upload(edges.layer_check);
            edge_offset = cuda::upload(edges.edge_offset);
            edge_bit = cuda::upload(edges.edge_bit);
        }
        const std::size_t values = max_frames * std::size_t(n);
        llr_f = cuda::device_buffer<float>(values);
        llr_q = cuda::device_buffer<std::int8_t>(values);
        app = cuda::device_buffer<float>(values);
        bits = cuda::device_buffer<std::uint8_t>(values);
        satisfied = cuda::device_buffer<std::uint8_t>(max_frames);
        iterations = cuda::device_buffer<int>(max_frames);
        count = cuda::device_buffer<unsigned>(1);
        count_host = cuda::pinned_buffer<unsigned>(1);
    }

    void set_int8_scale(float scale)
    {
        if (!(scale > 0.0f) || !std::isfinite(scale))
            throw std::invalid_argument("gpu_ldpc_decoder: the int8 scale must be finite and > 0");
        params.int8_scale = scale;
        half_params.int8_scale = scale;
    }

    code_view view() const
    {
        return { n, layers, layer_offset.get(), layer_check.get(), edge_offset.get(), edge_bit.get(), m };
    }

    // frames codewords from llr on stream s, outputs at the given (device) pointers.
    template <typename In>
    void kernel(const In* llr, std::size_t frames, const ldpc_outputs& out, cudaStream_t s)
    {
        if (half) {
            const half_ldpc::code_view hv{ n, layers, layer_offset.get(), slot_base.get(),
                                           check_info.get(), slot_bit.get(), message_slots };
            half_kernel<In>(half_degree)<<<unsigned((frames + 1) / 2), unsigned(threads), shared_bytes, s>>>(
                llr, frames, hv, half_params, out.app, out.bits, out.iterations, out.satisfied, count.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("min_sum_half decode_kernel");
            return;
        }
        ldpc_decode_kernel<In><<<unsigned(frames), unsigned(threads), shared_bytes, s>>>(
            llr, view(), params, out.app, out.bits, out.iterations, out.satisfied, count.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("ldpc_decode_kernel");
    }

    template <typename In>
    void decode_on_device(const In* llr, std::size_t frames, const ldpc_outputs& out,
                          cudaStream_t s)
    {
        if (frames > max_frames)
            throw std::invalid_argument("gpu_ldpc_decoder: more frames than max_frames");
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned), s));
        if (frames == 0)
            return;
        GPUMIMO_CUDA_CHECK(cudaEventRecord(start.get(), s));
        kernel(llr, frames, out, s);
        GPUMIMO_CUDA_CHECK(cudaEventRecord(stop.get(), s));
        timed = true;
    }

    // Host to host as a pipeline: the batch in chunks alternating between two streams,
    // so that one chunk's copies overlap the other's kernel (host memory that is not
    // pinned still decodes right, its copies staged by the driver without overlap).
    // LLRs already on the device (a device-resident stream buffer) are decoded where
    // they lie, only the outputs copied back.
    template <typename In>
    std::size_t decode_host(const In* llr, std::size_t frames, const ldpc_outputs& out,
                            cuda::device_buffer<In>& staging)
    {
        if (frames > max_frames)
            throw std::invalid_argument("gpu_ldpc_decoder: more frames than max_frames");
        cuda::device_guard guard;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        cudaStream_t streams[2] = { stream.get(), stream2.get() };
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned), streams[0]));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(start.get(), streams[0]));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(fork.get(), streams[0]));
        GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(streams[1], fork.get(), 0));
        const bool llr_on_device = cuda::is_device(llr);
        const std::size_t chunk = std::max(min_chunk_frames, (frames + 3) / 4);
        const std::size_t nn = std::size_t(n);
        auto back = [&](void* host, const void* device_ptr, std::size_t bytes, cudaStream_t s) {
            if (host && bytes)
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(host, device_ptr, bytes, cudaMemcpyDeviceToHost, s));
        };
        std::size_t i = 0;
        for (std::size_t first = 0; first < frames; first += chunk, i++) {
            const std::size_t count_here = std::min(chunk, frames - first);
            const std::size_t v0 = first * nn, values = count_here * nn;
            cudaStream_t s = streams[i % 2];
            if (!llr_on_device)
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(staging.get() + v0, llr + v0, values * sizeof(In),
                                                   cudaMemcpyHostToDevice, s));
            const In* in = llr_on_device ? llr + v0 : staging.get() + v0;
            ldpc_outputs dev;
            dev.app = out.app ? app.get() + v0 : nullptr;
            dev.bits = out.bits ? bits.get() + v0 : nullptr;
            dev.iterations = out.iterations ? iterations.get() + first : nullptr;
            dev.satisfied = out.satisfied ? satisfied.get() + first : nullptr;
            kernel(in, count_here, dev, s);
            back(out.app ? out.app + v0 : nullptr, dev.app, values * sizeof(float), s);
            back(out.bits ? out.bits + v0 : nullptr, dev.bits, values, s);
            back(out.iterations ? out.iterations + first : nullptr, dev.iterations,
                 count_here * sizeof(int), s);
            back(out.satisfied ? out.satisfied + first : nullptr, dev.satisfied, count_here, s);
        }
        GPUMIMO_CUDA_CHECK(cudaEventRecord(join.get(), streams[1]));
        GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(streams[0], join.get(), 0));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(stop.get(), streams[0]));
        back(count_host.get(), count.get(), sizeof(unsigned), streams[0]);
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
        GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, start.get(), stop.get()));
        timed = true;
        return *count_host.get();
    }
};

gpu_ldpc_decoder::gpu_ldpc_decoder(const ldpc_code& code,
                                   const ldpc_decoder_config& config,
                                   std::size_t max_frames,
                                   int device)
{
    // The stream and events belong to the device current at their creation.
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_impl = std::make_unique<impl>(code, config, max_frames, device);
}

gpu_ldpc_decoder::~gpu_ldpc_decoder() = default;

std::size_t gpu_ldpc_decoder::max_frames() const { return d_impl->max_frames; }

std::size_t gpu_ldpc_decoder::decode(const float* llr, std::size_t frames, const ldpc_outputs& out)
{
    return d_impl->decode_host(llr, frames, out, d_impl->llr_f);
}

std::size_t gpu_ldpc_decoder::decode(const std::int8_t* llr,
                                     float scale,
                                     std::size_t frames,
                                     const ldpc_outputs& out)
{
    d_impl->set_int8_scale(scale);
    return d_impl->decode_host(llr, frames, out, d_impl->llr_q);
}

void gpu_ldpc_decoder::decode_device(const float* llr, std::size_t frames, const ldpc_outputs& out)
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    d_impl->decode_on_device(llr, frames, out, d_impl->stream.get());
}

void gpu_ldpc_decoder::decode_device(const float* llr,
                                     std::size_t frames,
                                     const ldpc_outputs& out,
                                     void* stream)
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    d_impl->decode_on_device(llr, frames, out, static_cast<cudaStream_t>(stream));
}

void gpu_ldpc_decoder::decode_device(const std::int8_t* llr,
                                     float scale,
                                     std::size_t frames,
                                     const ldpc_outputs& out)
{
    d_impl->set_int8_scale(scale);
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    d_impl->decode_on_device(llr, frames, out, d_impl->stream.get());
}

void gpu_ldpc_decoder::synchronize()
{
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_impl->device));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(d_impl->stream.get()));
    if (d_impl->timed)
        GPUMIMO_CUDA_CHECK(
            cudaEventElapsedTime(&d_impl->kernel_ms, d_impl->start.get(), d_impl->stop.get()));
}

float gpu_ldpc_decoder::last_kernel_ms() const { return d_impl->kernel_ms; }

namespace detail {
namespace {
// gpu_ldpc_decoder as the factory's GPU engine (make_ldpc_decoder_engine).
class gpu_ldpc_engine : public ldpc_decoder_engine
{
public:
    gpu_ldpc_engine(const ldpc_code& code, const ldpc_engine_config& c)
        : d_dec(code, c.decoder, c.max_frames, c.device), d_n(code.n)
    {
    }
    const char* backend() const override { return "cuda"; }
    int codeword_bits() const override { return d_n; }
    std::size_t decode(const float* llr, std::size_t frames, const ldpc_outputs& out) override
    {
        return d_dec.decode(llr, frames, out);
    }
    std::size_t decode(const std::int8_t* llr,
                       float scale,
                       std::size_t frames,
                       const ldpc_outputs& out) override
    {
        return d_dec.decode(llr, scale, frames, out);
    }

private:
    gpu_ldpc_decoder d_dec;
    int d_n;
};
} // namespace

std::unique_ptr<ldpc_decoder_engine> make_gpu_ldpc_decoder_engine(const ldpc_code& code,
                                                                  const ldpc_engine_config& c,
                                                                  std::string*)
{
    return std::make_unique<gpu_ldpc_engine>(code, c);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
