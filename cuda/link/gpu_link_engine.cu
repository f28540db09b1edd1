/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator's CUDA engine: a batch of frames is made, sent through the channel,
 * detected, de-interleaved, decoded and counted on the GPU, and only the counts come
 * back. The transmitter and channel repeat make_link_frame (lib/core/link/link_setup.cc)
 * from the same Philox counters: the same bits, and channel and noise samples within a
 * few units in the last place (CUDA's logf and sincospif against the C library's).
 *
 * Kernels, in order on one stream:
 *   source_bits_kernel   thread per (frame, 128 random bits): information and padding
 *   encode_kernel        block per frame: parity bits, packed information in shared memory
 *   channel_kernel       thread per (frame, vector): symbols, H, y = H s + n
 *   gpu_detector::detect_device
 *   deinterleave_kernel  thread per (frame, codeword bit): codeword LLRs, detector errors
 *   gpu_ldpc_decoder::decode_device (its own stream, after a synchronisation)
 *   count_kernel         block per frame: information bit errors, frame errors
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"

#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>
#include <gnuradio/gpumimo/core/philox.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

namespace gc = gr::gpumimo::cuda;

// What the kernels read about the link, by value.
struct link_view {
    std::uint64_t seed;
    int k, n, frame_bits, vectors, group, channels;
    int nt, nr, m;
    int channel; // link_channel
    int taps, fft_len;
    bool coded;
    const int* info_positions;           // coded: codeword position of information bit i
    const int* parity_positions;         // coded: codeword position of parity row r
    const std::uint64_t* parity_rows;    // coded: [rank][row_words]
    int rank, row_words;
    const std::uint32_t* interleaver;    // [codeword | padding] bit -> vector bit
    const std::uint32_t* deinterleaver;  // vector bit -> [codeword | padding] bit
    const float2* points;                // constellation, index = label
    const float* tap_sigma;              // tdl: sqrt(p_l / 2)
    const double* tap_delay;             // tdl: continuous delays in samples, or null
};

// Counters the kernels add to: information bit errors, frame errors, detector bit
// errors, decoder iterations.
enum counter { c_bit_errors, c_frame_errors, c_raw_errors, c_iterations, c_count };

__device__ philox_words
draw(const link_view& v, link_draw purpose, std::uint32_t index, std::uint32_t point, std::uint64_t frame)
{
    return link_words(v.seed, purpose, index, point, frame);
}

__device__ float2 gaussian(const philox_words& w, float sigma)
{
    float a, b;
    philox_gaussian_pair(w.v[0], w.v[1], a, b);
    return make_float2(sigma * a, sigma * b);
}

__device__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Information bits to `info` and to their codeword positions in `plain`; padding bits
// after the codeword.
__global__ void source_bits_kernel(link_view v,
                                   std::uint32_t point,
                                   std::uint64_t first_frame,
                                   int frames,
                                   std::uint8_t* info,
                                   std::uint8_t* plain)
{
    const int random_bits = v.k + (v.frame_bits - v.n);
    const int blocks128 = (random_bits + 127) / 128;
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (tid >= (long long)frames * blocks128)
        return;
    const int f = int(tid / blocks128), b128 = int(tid % blocks128);
    const philox_words w = draw(v, link_draw::bits, std::uint32_t(b128), point, first_frame + f);
    std::uint8_t* my_info = info + std::size_t(f) * v.k;
    std::uint8_t* my_plain = plain + std::size_t(f) * v.frame_bits;
    for (int j = 0; j < 128; j++) {
        const int i = b128 * 128 + j;
        if (i >= random_bits)
            break;
        const std::uint8_t bit = (w.v[j / 32] >> (j % 32)) & 1u;
        if (i < v.k) {
            my_info[i] = bit;
            my_plain[v.coded ? v.info_positions[i] : i] = bit;
        } else {
            my_plain[v.n + (i - v.k)] = bit;
        }
    }
}

// Parity bit r = parity(row r & packed information).
__global__ void encode_kernel(link_view v, const std::uint8_t* info, std::uint8_t* plain)
{
    extern __shared__ std::uint64_t packed[];
    const std::uint8_t* my_info = info + std::size_t(blockIdx.x) * v.k;
    for (int w = threadIdx.x; w < v.row_words; w += blockDim.x) {
        std::uint64_t word = 0;
        for (int b = 0; b < 64 && w * 64 + b < v.k; b++)
            word |= std::uint64_t(my_info[w * 64 + b]) << b;
        packed[w] = word;
    }
    if (threadIdx.x == 0 && v.row_words % 2)
        packed[v.row_words] = 0; // the pad word of an odd count (see the launch)
    __syncthreads();
    std::uint8_t* my_plain = plain + std::size_t(blockIdx.x) * v.frame_bits;
    for (int r = threadIdx.x; r < v.rank; r += blockDim.x) {
        const std::uint64_t* row = v.parity_rows + std::size_t(r) * v.row_words;
        std::uint64_t acc = 0;
        for (int w = 0; w < v.row_words; w++)
            acc ^= __ldg(row + w) & packed[w];
        my_plain[v.parity_positions[r]] = std::uint8_t(__popcll(acc) & 1);
    }
}

// H of channel matrix `ch` of a frame, entry e = r * nt + t.
__device__ float2 channel_entry(const link_view& v, int ch, int e, std::uint32_t point, std::uint64_t frame)
{
    switch (v.channel) {
    case int(link_channel::awgn):
        return make_float2(e / v.nt == e % v.nt ? 1.0f : 0.0f, 0.0f);
    case int(link_channel::rayleigh):
        return gaussian(draw(v, link_draw::channel, std::uint32_t(ch * v.nr * v.nt + e), point, frame),
                        0.70710678118654752f);
    default: { // tdl: the taps' DFT at subcarrier ch mod N
        const int sc = ch % v.fft_len;
        float2 acc = make_float2(0.0f, 0.0f);
        for (int tap = 0; tap < v.taps; tap++) {
            const float2 g = gaussian(
                draw(v, link_draw::taps, std::uint32_t(tap * v.nr * v.nt + e), point, frame),
                v.tap_sigma[tap]);
            const float turns =
                v.tap_delay ? float(-2.0 * fmod(double(sc) * v.tap_delay[tap], double(v.fft_len)) / double(v.fft_len))
                            : -2.0f * float((sc * tap) % v.fft_len) / float(v.fft_len);
            float s, c;
            sincospif(turns, &s, &c);
            const float2 p = cmul(g, make_float2(c, s));
            acc.x += p.x;
            acc.y += p.y;
        }
        return acc;
    }
    }
}

// Vector `vec` of a frame: its symbols from the interleaved bits, its H (written by the
// group's first vector), y = H s + n.
__global__ void channel_kernel(link_view v,
                               std::uint32_t point,
                               std::uint64_t first_frame,
                               int frames,
                               float noise_var,
                               const std::uint8_t* plain,
                               float2* h,
                               float2* y)
{
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (tid >= (long long)frames * v.vectors)
        return;
    const int f = int(tid / v.vectors), vec = int(tid % v.vectors);
    const std::uint64_t frame = first_frame + f;
    const std::uint8_t* my_plain = plain + std::size_t(f) * v.frame_bits;

    float2 sym[max_nt];
    for (int t = 0; t < v.nt; t++) {
        int index = 0;
        for (int b = 0; b < v.m; b++) {
            const int at = vec * v.nt * v.m + t * v.m + b;
            index = (index << 1) | my_plain[v.deinterleaver[at]];
        }
        sym[t] = v.points[index];
    }
    const int ch = vec / v.group;
    const bool writes_h = vec % v.group == 0;
    float2* my_h = h + (std::size_t(f) * v.channels + ch) * v.nr * v.nt;
    const float sigma = sqrtf(noise_var / 2.0f);
    for (int r = 0; r < v.nr; r++) {
        float2 acc = gaussian(draw(v, link_draw::noise, std::uint32_t(vec * v.nr + r), point, frame), sigma);
        for (int t = 0; t < v.nt; t++) {
            const float2 hrt = channel_entry(v, ch, r * v.nt + t, point, frame);
            if (writes_h)
                my_h[r * v.nt + t] = hrt;
            const float2 p = cmul(hrt, sym[t]);
            acc.x += p.x;
            acc.y += p.y;
        }
        y[(std::size_t(f) * v.vectors + vec) * v.nr + r] = acc;
    }
}

__device__ void add_block_count(unsigned long long value, unsigned long long* counter)
{
    for (int off = 16; off > 0; off /= 2)
        value += __shfl_down_sync(0xffffffffu, value, off);
    if ((threadIdx.x & 31) == 0 && value)
        atomicAdd(counter, value);
}

// Codeword LLRs out of the vector order, and the detector's sign errors on them.
__global__ void deinterleave_kernel(link_view v,
                                    int frames,
                                    const float* llr,
                                    const std::uint8_t* plain,
                                    float* codeword_llr,
                                    unsigned long long* counters)
{
    const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    unsigned long long wrong = 0;
    if (tid < (long long)frames * v.n) {
        const int f = int(tid / v.n), i = int(tid % v.n);
        const float l = llr[std::size_t(f) * v.frame_bits + v.interleaver[i]];
        codeword_llr[tid] = l;
        wrong = std::uint8_t(l > 0.0f) != plain[std::size_t(f) * v.frame_bits + i];
    }
    add_block_count(wrong, counters + c_raw_errors);
}

// Information bit errors of one frame (a block), its frame error and iterations.
__global__ void count_kernel(link_view v,
                             const std::uint8_t* info,
                             const std::uint8_t* decided,
                             const float* codeword_llr,
                             const int* iterations,
                             unsigned long long* counters)
{
    const int f = blockIdx.x;
    unsigned errors = 0;
    for (int i = threadIdx.x; i < v.k; i += blockDim.x) {
        const std::uint8_t bit =
            v.coded ? decided[std::size_t(f) * v.n + v.info_positions[i]]
                    : std::uint8_t(codeword_llr[std::size_t(f) * v.n + i] > 0.0f);
        errors += bit != info[std::size_t(f) * v.k + i];
    }
    const unsigned total = __syncthreads_count(errors != 0) ? 1u : 0u;
    // Block sums: bit errors through warp shuffles and atomics, the frame flag once.
    add_block_count(errors, counters + c_bit_errors);
    if (threadIdx.x == 0) {
        if (total)
            atomicAdd(counters + c_frame_errors, 1ull);
        if (v.coded)
            atomicAdd(counters + c_iterations, (unsigned long long)iterations[f]);
    }
}

using gc::upload;

unsigned blocks_for(long long threads, int per_block)
{
    return unsigned((threads + per_block - 1) / per_block);
}

class gpu_link_engine : public link_engine
{
public:
    explicit gpu_link_engine(std::shared_ptr<const link_setup> setup)
        : d_setup(std::move(setup)), d_device(d_setup->config.device)
    {
        const link_setup& s = *d_setup;
        const link_config& c = s.config;
        const link_layout& l = s.layout;
        // The detector first: its constructor refuses configurations the GPU does not
        // take (gpu_supports) and devices that do not exist, before anything is allocated.
        d_detector = std::make_unique<gpu_detector>(c.algo, c.mod, c.nt, c.nr, c.detector, d_device, c.precision);
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));

        d_max_frames = c.max_batch_frames
                           ? c.max_batch_frames
                           : std::max<std::size_t>(256, ((std::size_t(1) << 19) + l.vectors - 1) / l.vectors);
        const std::size_t frames = d_max_frames;
        d_stream = std::make_unique<gc::stream>();
        if (s.coded())
            d_decoder = std::make_unique<gpu_ldpc_decoder>(c.code, c.decoder, frames, d_device);

        std::vector<std::uint32_t> deinterleaver(l.frame_bits);
        for (int i = 0; i < l.frame_bits; i++)
            deinterleaver[s.interleaver[i]] = std::uint32_t(i);
        std::vector<float2> points(s.constel.size());
        for (int i = 0; i < s.constel.size(); i++)
            points[i] = make_float2(float(s.constel.point(i).real()), float(s.constel.point(i).imag()));
        std::vector<float> tap_sigma;
        for (double p : c.tap_powers)
            tap_sigma.push_back(float(std::sqrt(p / 2)));

        d_interleaver = upload(s.interleaver);
        d_deinterleaver = upload(deinterleaver);
        d_points = upload(points);
        d_tap_sigma = upload(tap_sigma);
        if (!c.tap_delays.empty())
            d_tap_delay = upload(c.tap_delays);
        if (s.coded()) {
            d_info_positions = upload(s.encoder->info_positions());
            d_parity_positions = upload(s.encoder->parity_positions());
            d_parity_rows = upload(s.encoder->parity_rows());
        }

        d_info = gc::device_buffer<std::uint8_t>(frames * l.k);
        d_plain = gc::device_buffer<std::uint8_t>(frames * l.frame_bits);
        d_h = gc::device_buffer<float2>(frames * l.channels * c.nr * c.nt);
        d_y = gc::device_buffer<float2>(frames * l.vectors * c.nr);
        d_llr = gc::device_buffer<float>(frames * l.frame_bits);
        d_codeword_llr = gc::device_buffer<float>(frames * l.n);
        d_decided = gc::device_buffer<std::uint8_t>(frames * l.n);
        d_iterations = gc::device_buffer<int>(frames);
        d_noise = gc::device_buffer<float>(1);
        d_counters = gc::device_buffer<unsigned long long>(c_count);
        d_counters_host = gc::pinned_buffer<unsigned long long>(c_count);
        d_noise_host = gc::pinned_buffer<float>(1);

        link_view& v = d_view;
        v.seed = c.seed;
        v.k = l.k;
        v.n = l.n;
        v.frame_bits = l.frame_bits;
        v.vectors = l.vectors;
        v.group = l.group;
        v.channels = l.channels;
        v.nt = c.nt;
        v.nr = c.nr;
        v.m = s.constel.bits_per_symbol();
        v.channel = int(c.channel);
        v.taps = int(c.tap_powers.size());
        v.fft_len = c.tdl_fft_len;
        v.coded = s.coded();
        v.info_positions = d_info_positions.get();
        v.parity_positions = d_parity_positions.get();
        v.parity_rows = d_parity_rows.get();
        v.rank = s.coded() ? int(s.encoder->parity_positions().size()) : 0;
        v.row_words = s.coded() ? int(s.encoder->row_words()) : 0;
        v.interleaver = d_interleaver.get();
        v.deinterleaver = d_deinterleaver.get();
        v.points = d_points.get();
        v.tap_sigma = d_tap_sigma.get();
        v.tap_delay = c.tap_delays.empty() ? nullptr : d_tap_delay.get();
    }

    link_counts run(std::uint32_t point, std::uint64_t first_frame, std::size_t frames, float noise_var) override
    {
        link_counts counts;
        for (std::size_t done = 0; done < frames;) {
            const std::size_t now = std::min(frames - done, d_max_frames);
            counts += run_batch(point, first_frame + done, now, noise_var);
            done += now;
        }
        return counts;
    }

    std::size_t default_max_batch() const override { return d_max_frames; }
    std::string backend() const override { return "cuda"; }

    // The transmitter and channel alone, copied back (for the tests).
    void generate(std::uint32_t point, std::uint64_t first_frame, std::size_t frames, float noise_var,
                  std::uint8_t* info, std::uint8_t* plain, cf32* h, cf32* y)
    {
        if (frames > d_max_frames)
            throw std::invalid_argument("link simulator: more frames than the engine's batch");
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const link_layout& l = d_setup->layout;
        const link_config& c = d_setup->config;
        cudaStream_t st = d_stream->get();
        // Poisoned first (bits 0xEE, samples NaN): anything the kernels leave unwritten
        // shows up in the comparison with the CPU reference.
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_info.get(), 0xEE, frames * l.k, st));
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_plain.get(), 0xEE, frames * l.frame_bits, st));
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_h.get(), 0xFF, frames * l.channels * c.nr * c.nt * sizeof(float2), st));
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_y.get(), 0xFF, frames * l.vectors * c.nr * sizeof(float2), st));
        make_frames(point, first_frame, frames, noise_var);
        auto back = [&](void* dst, const void* src, std::size_t bytes) {
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st));
        };
        back(info, d_info.get(), frames * l.k);
        back(plain, d_plain.get(), frames * l.frame_bits);
        back(h, d_h.get(), frames * l.channels * c.nr * c.nt * sizeof(float2));
        back(y, d_y.get(), frames * l.vectors * c.nr * sizeof(float2));
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
    }

private:
    void make_frames(std::uint32_t point, std::uint64_t first_frame, std::size_t frames, float noise_var)
    {
        const link_layout& l = d_setup->layout;
        cudaStream_t st = d_stream->get();
        const int threads = 256;
        const int random_blocks = (l.k + (l.frame_bits - l.n) + 127) / 128;
        source_bits_kernel<<<blocks_for((long long)frames * random_blocks, threads), threads, 0, st>>>(
            d_view, point, first_frame, int(frames), d_info.get(), d_plain.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("source_bits_kernel");
        if (d_view.coded) {
            // An even number of words: the compiler reads the packed information in
            // 16-byte pairs (compute-sanitizer caught the odd word's partner out of
            // bounds for k = 288).
            const std::size_t words = std::size_t(d_view.row_words + 1) / 2 * 2;
            encode_kernel<<<unsigned(frames), threads, words * sizeof(std::uint64_t), st>>>(
                d_view, d_info.get(), d_plain.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("encode_kernel");
        }
        channel_kernel<<<blocks_for((long long)frames * l.vectors, 128), 128, 0, st>>>(
            d_view, point, first_frame, int(frames), noise_var, d_plain.get(), d_h.get(), d_y.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("channel_kernel");
    }

    link_counts run_batch(std::uint32_t point, std::uint64_t first_frame, std::size_t frames, float noise_var)
    {
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
        const link_layout& l = d_setup->layout;
        const link_config& c = d_setup->config;
        cudaStream_t st = d_stream->get();
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d_counters.get(), 0, c_count * sizeof(unsigned long long), st));
        *d_noise_host.get() = noise_var;
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_noise.get(), d_noise_host.get(), sizeof(float), cudaMemcpyHostToDevice, st));
        make_frames(point, first_frame, frames, noise_var);

        mimo_batch batch;
        batch.y = reinterpret_cast<const cf32*>(d_y.get());
        batch.h = reinterpret_cast<const cf32*>(d_h.get());
        batch.noise_var = d_noise.get();
        batch.batch = frames * l.vectors;
        batch.nt = c.nt;
        batch.nr = c.nr;
        batch.group = std::size_t(l.group);
        d_detector->detect_device(batch, d_llr.get(), st);

        const int threads = 256;
        deinterleave_kernel<<<blocks_for((long long)frames * l.n, threads), threads, 0, st>>>(
            d_view, int(frames), d_llr.get(), d_plain.get(), d_codeword_llr.get(), d_counters.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("deinterleave_kernel");
        d_detector->check_device_errors(st);
        // The decoder runs on its own stream: the codeword LLRs must be complete first.
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
        if (d_decoder) {
            ldpc_outputs out;
            out.bits = d_decided.get();
            out.iterations = d_iterations.get();
            d_decoder->decode_device(d_codeword_llr.get(), frames, out);
            d_decoder->synchronize();
        }
        count_kernel<<<unsigned(frames), threads, 0, st>>>(
            d_view, d_info.get(), d_decided.get(), d_codeword_llr.get(), d_iterations.get(), d_counters.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("count_kernel");
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_counters_host.get(), d_counters.get(),
                                           c_count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));

        const unsigned long long* n = d_counters_host.get();
        link_counts counts;
        counts.frames = frames;
        counts.frame_errors = n[c_frame_errors];
        counts.info_bits = std::uint64_t(frames) * l.k;
        counts.bit_errors = n[c_bit_errors];
        counts.coded_bits = std::uint64_t(frames) * l.n;
        counts.raw_bit_errors = n[c_raw_errors];
        counts.iterations = n[c_iterations];
        return counts;
    }

    std::shared_ptr<const link_setup> d_setup;
    int d_device;
    std::size_t d_max_frames = 0;
    std::unique_ptr<gc::stream> d_stream; // made after cudaSetDevice: streams belong to a device
    std::unique_ptr<gpu_detector> d_detector;
    std::unique_ptr<gpu_ldpc_decoder> d_decoder;
    link_view d_view{};
    gc::device_buffer<std::uint32_t> d_interleaver, d_deinterleaver;
    gc::device_buffer<float2> d_points;
    gc::device_buffer<float> d_tap_sigma;
    gc::device_buffer<double> d_tap_delay;
    gc::device_buffer<int> d_info_positions, d_parity_positions;
    gc::device_buffer<std::uint64_t> d_parity_rows;
    gc::device_buffer<std::uint8_t> d_info, d_plain, d_decided;
    gc::device_buffer<float2> d_h, d_y;
    gc::device_buffer<float> d_llr, d_codeword_llr, d_noise;
    gc::device_buffer<int> d_iterations;
    gc::device_buffer<unsigned long long> d_counters;
    gc::pinned_buffer<unsigned long long> d_counters_host;
    gc::pinned_buffer<float> d_noise_host;
};

} // namespace

std::unique_ptr<link_engine> make_gpu_link_engine(std::shared_ptr<const link_setup> setup)
{
    return std::make_unique<gpu_link_engine>(std::move(setup));
}

void make_gpu_link_frames(std::shared_ptr<const link_setup> setup,
                          std::uint32_t point,
                          std::uint64_t first_frame,
                          std::size_t frames,
                          float noise_var,
                          std::uint8_t* info,
                          std::uint8_t* frame_bits,
                          cf32* h,
                          cf32* y)
{
    gpu_link_engine engine(setup);
    const link_layout& l = setup->layout;
    std::vector<std::uint8_t> plain(frames * l.frame_bits);
    engine.generate(point, first_frame, frames, noise_var, info, plain.data(), h, y);
    for (std::size_t f = 0; f < frames; f++)
        for (int i = 0; i < l.frame_bits; i++)
            frame_bits[f * l.frame_bits + setup->interleaver[i]] = plain[f * l.frame_bits + i];
}

} // namespace core
} // namespace gpumimo
} // namespace gr
