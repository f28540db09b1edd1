/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT on CUDA devices (gpu_ofdm_fft.h): per chunk, all channels x symbols
 * either in one kernel of our own, conversions included (ofdm_fft_transform.cu; powers
 * of two from 64 to 4096 points), or through cuFFT with the conversions inside it as
 * load and store callbacks (ofdm_fft_callbacks.cu, linked at plan time) or as kernels
 * around it: one that decodes the input format and removes the prefix and windows
 * (forward) or places the carriers (inverse), one that selects, shifts, scales,
 * windows, inserts the prefix and encodes.
 * Only the CUDA toolkit here.
 */
#include "common/cuda_check.cuh"
#include "common/cufft_check.cuh"
#include "common/device_memory.cuh"
#include "common/slot_ring.cuh"
#include "ofdm/ofdm_fft_device.cuh"
#include "ofdm/ofdm_fft_transform.cuh"
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/ofdm/gpu_ofdm_fft.h>

#include <cuda_fp16.h>
#include <cufft.h>
#include <cufftXt.h>

#ifdef GPUMIMO_FFT_CALLBACKS
// ofdm_fft_callbacks.cu as LTO-IR, its loads and its stores each in a fatbin: the arrays
// gpumimo_ofdm_fft_loads and gpumimo_ofdm_fft_stores (bin2c; cuda/CMakeLists.txt).
#include "ofdm_fft_callbacks_fatbin.h"
#endif

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {


// An element of a chunk laid out [channel][symbol][x]: cs = channel * nsym + symbol.
struct chunk_element {
    std::size_t cs;
    int c, s, x;
};

// Calls f(i, element) for every element i of the chunk with `inner` per symbol: a block
// per (channel, symbol) row at a time, its threads over the row, so that the row's
// channel, symbol and start are worked out once per row, not by 64-bit divisions per
// element (with those: 11.4 ns per 512-point FFT on the H200, 9.2 without).
template <typename F>
__device__ __forceinline__ void
for_each_element(const chunk_geometry& g, int inner, F&& f)
{
    const std::size_t rows = std::size_t(g.channels) * g.nsym;
    for (std::size_t cs = blockIdx.x; cs < rows; cs += gridDim.x) {
        chunk_element e;
        e.cs = cs;
        e.s = int(cs % unsigned(g.nsym));
        e.c = int(cs / unsigned(g.nsym));
        for (int x = threadIdx.x; x < inner; x += blockDim.x) {
            e.x = x;
            f(cs * inner + x, e);
        }
    }
}

// Forward, before the FFT: one thread per (channel, symbol, body sample).
__global__ void forward_in_kernel(chunk_geometry g,
                                  const void* raw,
                                  const float* window,
                                  float2* work,
                                  unsigned char* bad)
{
    for_each_element(g, g.n, [&](std::size_t i, const chunk_element& e) {
        const int t = e.x;
        float2 v = decode(
            g.in_fmt, raw, place_of(g, true, e.c, e.s).in + t);
        if (!usable2(v))
            bad[e.cs] = 1;
        if (window)
            v = make_float2(v.x * window[t], v.y * window[t]);
        work[i] = v;
    });
}

// Forward, after the FFT: one thread per (channel, symbol, carrier).
__global__ void forward_out_kernel(chunk_geometry g,
                                   const float2* work,
                                   const int* bins,
                                   const unsigned char* bad,
                                   unsigned* zeroed,
                                   void* raw)
{
    for_each_element(g, g.ncar, [&](std::size_t, const chunk_element& e) {
        const int j = e.x;
        float2 v = make_float2(0.f, 0.f);
        if (bad[e.cs]) {
            if (j == 0)
                atomicAdd(zeroed, 1u);
        } else {
            const float2 x = work[e.cs * g.n + bins[j]];
            v = make_float2(x.x * g.scale, x.y * g.scale);
        }
        encode(g.out_fmt, v, raw, place_of(g, true, e.c, e.s).out + j);
    });
}

// Inverse, before the FFT: one thread per (channel, symbol, bin).
__global__ void inverse_in_kernel(chunk_geometry g,
                                  const void* raw,
                                  const int* carrier_of_bin,
                                  float2* work,
                                  unsigned char* bad)
{
    for_each_element(g, g.n, [&](std::size_t i, const chunk_element& e) {
        const int j = carrier_of_bin[e.x];
        float2 v = make_float2(0.f, 0.f);
        if (j >= 0) {
            v = decode(g.in_fmt, raw, place_of(g, false, e.c, e.s).in + j);
            if (!usable2(v))
                bad[e.cs] = 1;
        }
        work[i] = v;
    });
}

// Inverse, after the FFT: one thread per (channel, symbol, sample of prefix + body).
__global__ void inverse_out_kernel(chunk_geometry g,
                                   const float2* work,
                                   const float* window,
                                   const unsigned char* bad,
                                   unsigned* zeroed,
                                   void* raw)
{
    for_each_element(g, g.max_cp + g.n, [&](std::size_t, const chunk_element& e) {
        const symbol_place at = place_of(g, false, e.c, e.s);
        const int t = e.x, cp = at.cp;
        if (t >= cp + g.n)
            return; // this symbol's prefix is shorter than the longest
        const int k = t < cp ? g.n - cp + t : t - cp; // the prefix repeats the tail
        float2 v = make_float2(0.f, 0.f);
        if (bad[e.cs]) {
            if (t == 0)
                atomicAdd(zeroed, 1u);
        } else {
            const float2 x = work[e.cs * g.n + k];
            const float w = (window ? window[k] : 1.f) * g.scale;
            v = make_float2(x.x * w, x.y * w);
        }
        encode(g.out_fmt, v, raw, at.out + t);
    });
}

// Before a chunk's transforms with callbacks: the callbacks' view of it (kernel
// arguments are taken at launch, so the host may change them for the next chunk at
// once) and the row tables they look symbols up in (fft_callback_info).
__global__ void prepare_callbacks_kernel(chunk_geometry g,
                                         bool forward,
                                         fft_callback_info info,
                                         fft_callback_info* slot,
                                         std::size_t* in_rows,
                                         std::size_t* out_rows,
                                         int* cp_rows)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *slot = info;
    const unsigned rows = unsigned(g.channels) * unsigned(g.nsym);
    for (unsigned cs = blockIdx.x * blockDim.x + threadIdx.x; cs < rows;
         cs += gridDim.x * blockDim.x) {
        const symbol_place at =
            place_of(g, forward, int(cs / unsigned(g.nsym)), int(cs % unsigned(g.nsym)));
        in_rows[cs] = at.in;
        out_rows[cs] = at.out;
        cp_rows[cs] = at.cp;
    }
}

// After a chunk's copy out: its zeroed count to the host through mapped pinned memory
// (a posted write from the compute engine: the copy engines stay on the samples,
// where a 4-byte copy back per chunk took its turn among them) and the slot's counter
// back to zero for its next chunk (no memset before it).
__global__ void publish_count_kernel(unsigned* counter, unsigned* host_mapped)
{
    *host_mapped = *counter;
    *counter = 0;
}

// for_each_element's launch: a block per row (up to a grid-stride's worth), threads a
// whole number of warps up to 256 covering `inner`.
unsigned rows_grid(std::size_t rows) { return unsigned(std::min<std::size_t>(rows, 65535u * 8)); }
int row_threads(int inner) { return std::min(256, std::max(32, (inner + 31) / 32 * 32)); }

} // namespace
} // namespace cuda

namespace core {

namespace gc = gr::gpumimo::cuda;

namespace {

// One slot's buffers on its device (the ring holds its stream and event): the buffers
// of one chunk in flight.
struct fft_slot {
    gc::event waited; // process_device's wait on the caller's stream
    gc::event fork; // device-resident calls: the caller's stream to this one and back
    gc::device_buffer<unsigned char> raw_in, raw_out, bad;
    gc::device_buffer<float2> work, fft_area;
    gc::device_buffer<unsigned> zeroed;
    // Fused plans only: what the callbacks read, and its row tables.
    gc::device_buffer<gc::fft_callback_info> callback_info;
    gc::device_buffer<std::size_t> in_rows, out_rows;
    gc::device_buffer<int> cp_rows;
    // The pointer cuFFT hands the callbacks, kept where the plans can rely on it.
    std::unique_ptr<void*> callback_info_ptr = std::make_unique<void*>(nullptr);
    gc::pinned_buffer<unsigned char> host_in, host_out;
    gc::pinned_buffer<unsigned> host_zeroed;
    unsigned* host_zeroed_mapped = nullptr; // its device address
    std::vector<cufftHandle> plans; // plans[k]: a batch of 2^k transforms
    // The chunk in flight: where its staged output goes once it has ended.
    bool pending_staged = false;
    std::vector<unsigned char*> pending_out; // caller's channels (staged output only)
    std::size_t pending_bytes = 0; // a channel's output, bytes (also its staged pitch)
};

struct fft_device {
    int id;
    gc::device_buffer<float2> twiddles; // the single-pass transform's table
    gc::device_buffer<unsigned> unread_zeroed; // counts nobody asked for (enqueue_device)
    gc::device_buffer<unsigned> waited_zeroed; // process_device's count
    gc::device_buffer<float> window;
    gc::device_buffer<int> bins, carrier_of_bin;
    std::vector<fft_slot> slots;
};

} // namespace

struct gpu_ofdm_fft::impl {
    ofdm_fft_config config;
    ofdm_fft_layout layout;
    std::size_t chunk;
    int max_cp;
    fft_fusion path = fft_fusion::kernels; // the one in use, never automatic
    std::string fusion_note; // why not the single-pass transform (nor the callbacks)
    // The callbacks' names (ofdm_fft_callbacks.cu): direction and sample format.
    const std::string load_callback, store_callback;
    std::vector<fft_device> devices;
    // Slot k of the ring is slot k / devices.size() of device k % devices.size(), so that
    // consecutive chunks go to consecutive devices.
    std::unique_ptr<gc::slot_ring> ring;
    fft_slot& slot_of(std::size_t k)
    {
        return devices[k % devices.size()].slots[k / devices.size()];
    }

    impl(const ofdm_fft_config& c,
         const std::vector<int>& ids,
         std::size_t symbols_per_chunk,
         int streams,
         fft_fusion fusion)
        : config(c),
          layout(c),
          max_cp(layout.longest_cp()),
          load_callback(callback_name("load", c.direction, c.input)),
          store_callback(callback_name("store", c.direction, c.output))
    {
        if (ids.empty() || streams < 1)
            throw std::invalid_argument(
                "gpu_ofdm_fft: at least one device and one stream");
        int count = 0;
        GPUMIMO_CUDA_CHECK(cudaGetDeviceCount(&count));
        for (int id : ids)
            if (id < 0 || id >= count)
                throw std::invalid_argument("CUDA device " + std::to_string(id) +
                                            " does not exist (" + std::to_string(count) +
                                            " present)");
        const std::size_t n = c.fft_len, C = c.channels;
        chunk = symbols_per_chunk
                    ? symbols_per_chunk
                    : std::max<std::size_t>(1, (std::size_t(1) << 22) / (C * n));
        const std::size_t time_max = chunk * (n + max_cp),
                          car_max = chunk * layout.carriers();
        const bool fwd = c.direction == fft_direction::forward;
        const std::size_t in_max = C * (fwd ? time_max : car_max);
        const std::size_t out_max = C * (fwd ? car_max : time_max);
        const std::size_t in_bytes = bytes_per_sample(c.input) * in_max;
        const std::size_t out_bytes = bytes_per_sample(c.output) * out_max;

        std::vector<int> carrier_of_bin(n, -1);
        for (int j = 0; j < layout.carriers(); j++)
            carrier_of_bin[layout.bin_of(j)] = j;
        const std::size_t batch_max = C * chunk;
        int levels = 1;
        while ((std::size_t(1) << levels) <= batch_max)
            levels++;

        if (fusion == fft_fusion::single_pass && !gc::single_pass_supports(int(n)))
            throw std::invalid_argument(
                "gpu_ofdm_fft: no single-pass transform of " + std::to_string(n) +
                " points (powers of two from 64 to 4096)");
        if (gc::single_pass_supports(int(n)) &&
            (fusion == fft_fusion::single_pass || fusion == fft_fusion::automatic)) {
            path = fft_fusion::single_pass;
            build(ids, streams, in_bytes, out_bytes, batch_max, levels, carrier_of_bin);
            return;
        }
        if (fusion == fft_fusion::automatic)
            fusion_note = "no single-pass transform of " + std::to_string(n) + " points";

        // The callbacks split a chunk's element index in 32 bits.
        std::string refusal;
        if (fusion != fft_fusion::kernels && batch_max * n >= (std::size_t(1) << 31))
            refusal = "a chunk of 2^31 samples or more";
#ifndef GPUMIMO_FFT_CALLBACKS
        if (fusion != fft_fusion::kernels && refusal.empty())
            refusal = "built without them (GPUMIMO_FFT_CALLBACKS off)";
#endif
        if (fusion == fft_fusion::callbacks && !refusal.empty())
            throw std::runtime_error("gpu_ofdm_fft: no cuFFT callbacks: " + refusal);
        if (fusion == fft_fusion::kernels)
            fusion_note = "kernels asked for";
        else if (!refusal.empty())
            note_callbacks_refused(refusal);
        path = fusion != fft_fusion::kernels && refusal.empty() ? fft_fusion::callbacks
                                                                : fft_fusion::kernels;
        try {
            build(ids, streams, in_bytes, out_bytes, batch_max, levels, carrier_of_bin);
        } catch (const std::runtime_error& e) {
            if (path != fft_fusion::callbacks || fusion == fft_fusion::callbacks)
                throw;
            // cuFFT refused the callbacks (no nvJitLink, an unsupported plan): LTO
            // callbacks cannot be taken off a plan, so everything is built again.
            release();
            devices.clear();
            path = fft_fusion::kernels;
            note_callbacks_refused(std::string("cuFFT refused the callbacks: ") + e.what());
            build(ids, streams, in_bytes, out_bytes, batch_max, levels, carrier_of_bin);
        }
    }

    ~impl() { release(); }

    static std::string callback_name(const char* kind, fft_direction dir, sample_format f)
    {
        return std::string("gpumimo_ofdm_") + kind +
               (dir == fft_direction::forward ? "_forward_" : "_inverse_") + to_string(f);
    }

    void note_callbacks_refused(const std::string& why)
    {
        fusion_note += (fusion_note.empty() ? "" : "; no cuFFT callbacks: ") + why;
    }

    // Devices, their slots and the slots' plans (none for the single-pass transform;
    // with callbacks on the callbacks' path).
    void build(const std::vector<int>& ids,
               int streams,
               std::size_t in_bytes,
               std::size_t out_bytes,
               std::size_t batch_max,
               int levels,
               const std::vector<int>& carrier_of_bin)
    {
        const std::size_t n = config.fft_len;
        const gc::device_guard keep;
        ring = std::make_unique<gc::slot_ring>(ids.size() * std::size_t(streams), ids);
        for (int id : ids) {
            GPUMIMO_CUDA_CHECK(cudaSetDevice(id));
            devices.emplace_back();
            fft_device& d = devices.back();
            d.id = id;
            if (!config.window.empty()) {
                d.window = gc::device_buffer<float>(n);
                GPUMIMO_CUDA_CHECK(cudaMemcpy(d.window.get(),
                                              config.window.data(),
                                              n * sizeof(float),
                                              cudaMemcpyHostToDevice));
            }
            d.unread_zeroed = gc::device_buffer<unsigned>(1);
            d.waited_zeroed = gc::device_buffer<unsigned>(1);
            d.bins = gc::device_buffer<int>(layout.carriers());
            GPUMIMO_CUDA_CHECK(cudaMemcpy(d.bins.get(),
                                          layout.bins().data(),
                                          layout.carriers() * sizeof(int),
                                          cudaMemcpyHostToDevice));
            d.carrier_of_bin = gc::device_buffer<int>(n);
            GPUMIMO_CUDA_CHECK(cudaMemcpy(d.carrier_of_bin.get(),
                                          carrier_of_bin.data(),
                                          n * sizeof(int),
                                          cudaMemcpyHostToDevice));
            if (path == fft_fusion::single_pass) {
                const std::vector<float2> table = gc::single_pass_twiddles(int(n));
                d.twiddles = gc::device_buffer<float2>(n);
                GPUMIMO_CUDA_CHECK(cudaMemcpy(d.twiddles.get(),
                                              table.data(),
                                              n * sizeof(float2),
                                              cudaMemcpyHostToDevice));
            }
            for (int k = 0; k < streams; k++) {
                d.slots.emplace_back();
                fft_slot& s = d.slots.back();
                s.raw_in = gc::device_buffer<unsigned char>(in_bytes);
                s.raw_out = gc::device_buffer<unsigned char>(out_bytes);
                s.zeroed = gc::device_buffer<unsigned>(1);
                s.host_in = gc::pinned_buffer<unsigned char>(in_bytes);
                s.host_out = gc::pinned_buffer<unsigned char>(out_bytes);
                s.host_zeroed = gc::pinned_buffer<unsigned>(1);
                GPUMIMO_CUDA_CHECK(cudaHostGetDevicePointer(
                    reinterpret_cast<void**>(&s.host_zeroed_mapped), s.host_zeroed.get(), 0));
                GPUMIMO_CUDA_CHECK(cudaMemset(s.zeroed.get(), 0, sizeof(unsigned)));
                s.pending_out.resize(config.channels);
                if (path == fft_fusion::single_pass)
                    continue; // no work buffer, no plans
                if (path == fft_fusion::kernels) // the kernels' per-symbol flags
                    s.bad = gc::device_buffer<unsigned char>(batch_max);
                s.work = gc::device_buffer<float2>(batch_max * n);
                if (path == fft_fusion::callbacks) {
                    s.callback_info = gc::device_buffer<gc::fft_callback_info>(1);
                    *s.callback_info_ptr = s.callback_info.get();
                    s.in_rows = gc::device_buffer<std::size_t>(batch_max);
                    s.out_rows = gc::device_buffer<std::size_t>(batch_max);
                    s.cp_rows = gc::device_buffer<int>(batch_max);
                }
                // One plan per power-of-two batch, sharing one work area: a chunk of any
                // size runs as the binary digits of its transform count.
                std::size_t area = 0;
                for (int l = 0; l < levels; l++) {
                    cufftHandle p;
                    GPUMIMO_CUFFT_CHECK(cufftCreate(&p));
                    s.plans.push_back(p);
                    GPUMIMO_CUFFT_CHECK(cufftSetAutoAllocation(p, 0));
                    if (path == fft_fusion::callbacks)
                        attach_callbacks(p, s);
                    int len = int(n);
                    std::size_t bytes = 0;
                    GPUMIMO_CUFFT_CHECK(cufftMakePlanMany(p,
                                                          1,
                                                          &len,
                                                          nullptr,
                                                          1,
                                                          len,
                                                          nullptr,
                                                          1,
                                                          len,
                                                          CUFFT_C2C,
                                                          1 << l,
                                                          &bytes));
                    area = std::max(area, bytes);
                    GPUMIMO_CUFFT_CHECK(cufftSetStream(
                        p, ring->stream(std::size_t(k) * ids.size() + (devices.size() - 1))));
                }
                s.fft_area =
                    gc::device_buffer<float2>(std::max<std::size_t>(1, area / 8 + 1));
                for (cufftHandle p : s.plans)
                    GPUMIMO_CUFFT_CHECK(cufftSetWorkArea(p, s.fft_area.get()));
            }
        }
    }

    // The load and store callbacks of this direction, before the plan is made (cuFFT
    // links them into the kernels it picks then).
    void attach_callbacks(cufftHandle p, fft_slot& s)
    {
#ifdef GPUMIMO_FFT_CALLBACKS
        GPUMIMO_CUFFT_CHECK(cufftXtSetJITCallback(p,
                                                  load_callback.c_str(),
                                                  gpumimo_ofdm_fft_loads,
                                                  sizeof(gpumimo_ofdm_fft_loads),
                                                  CUFFT_CB_LD_COMPLEX,
                                                  s.callback_info_ptr.get()));
        GPUMIMO_CUFFT_CHECK(cufftXtSetJITCallback(p,
                                                  store_callback.c_str(),
                                                  gpumimo_ofdm_fft_stores,
                                                  sizeof(gpumimo_ofdm_fft_stores),
                                                  CUFFT_CB_ST_COMPLEX,
                                                  s.callback_info_ptr.get()));
#else
        (void)p;
        (void)s;
        throw std::logic_error("gpu_ofdm_fft: callbacks not built");
#endif
    }

    void release()
    {
        const gc::device_guard keep;
        if (ring)
            ring->abandon(); // every stream idle before the plans go
        for (fft_device& d : devices) {
            cudaSetDevice(d.id);
            for (fft_slot& s : d.slots) {
                for (cufftHandle p : s.plans)
                    cufftDestroy(p);
                s.plans.clear();
            }
        }
    }

    gc::chunk_geometry geometry(std::size_t first, std::size_t nsym) const
    {
        gc::chunk_geometry g{};
        g.n = config.fft_len;
        g.ncar = layout.carriers();
        g.channels = config.channels;
        g.nsym = int(nsym);
        g.period = layout.cp_period();
        g.phase = int(first % g.period);
        g.period_len = (long long)layout.time_samples(0, g.period);
        for (int i = 0; i < g.period; i++)
            g.cp[i] = layout.cp_of(i);
        g.cp_prefix[0] = 0;
        for (int j = 0; j < 2 * g.period; j++)
            g.cp_prefix[j + 1] = g.cp_prefix[j] + g.cp[j % g.period];
        g.max_cp = max_cp;
        g.in_fmt = int(config.input);
        g.out_fmt = int(config.output);
        g.scale = config.scale;
        g.in_pitch = layout.in_samples(first, nsym);
        g.out_pitch = layout.out_samples(first, nsym);
        return g;
    }

    // Hands an ended chunk's staged output to the caller (the ring waited for it);
    // returns the chunk's zeroed (channel, symbol) pairs.
    std::size_t land(std::size_t k)
    {
        fft_slot& s = slot_of(k);
        if (s.pending_staged)
            for (int c = 0; c < config.channels; c++)
                std::memcpy(s.pending_out[c],
                            s.host_out.get() + c * s.pending_bytes,
                            s.pending_bytes);
        return *static_cast<volatile unsigned*>(s.host_zeroed.get()); // the GPU wrote it
    }

    // cuFFT over the chunk's channels x symbols in s.work, in place: the binary digits
    // of the count, one power-of-two plan each (with callbacks, each part's data pointer
    // tells them where in the chunk it starts).
    void transform(fft_slot& s, const gc::chunk_geometry& g, bool fwd)
    {
        const std::size_t batch = std::size_t(config.channels) * std::size_t(g.nsym);
        std::size_t done = 0;
        for (int l = int(s.plans.size()) - 1; l >= 0; l--)
            if (batch & (std::size_t(1) << l)) {
                cufftComplex* p =
                    reinterpret_cast<cufftComplex*>(s.work.get() + done * g.n);
                GPUMIMO_CUFFT_CHECK(
                    cufftExecC2C(s.plans[l], p, p, fwd ? CUFFT_FORWARD : CUFFT_INVERSE));
                done += std::size_t(1) << l;
            }
    }

    // The chunk's kernels and transforms on `st`: `in` and `out` on the device, channel
    // pitches g.in_pitch and g.out_pitch. The zeroed count adds up in *zeroed (device).
    void enqueue_kernels(fft_device& d,
                         fft_slot& s,
                         const gc::chunk_geometry& g,
                         const void* in,
                         void* out,
                         cudaStream_t st,
                         unsigned* zeroed)
    {
        const bool fwd = config.direction == fft_direction::forward;
        if (path == fft_fusion::single_pass) {
            gc::enqueue_single_pass(g,
                                    fwd,
                                    { in,
                                      out,
                                      d.window.get(),
                                      d.carrier_of_bin.get(),
                                      d.twiddles.get(),
                                      zeroed },
                                    st);
            return;
        }
        if (path == fft_fusion::callbacks) {
            gc::fft_callback_info info{};
            info.in = in;
            info.out = out;
            info.work = s.work.get();
            info.window = d.window.get();
            info.lookup = d.carrier_of_bin.get();
            info.in_rows = s.in_rows.get();
            info.out_rows = s.out_rows.get();
            info.cp_rows = s.cp_rows.get();
            info.zeroed = zeroed;
            info.by_n = gc::fast_divmod(std::uint32_t(g.n));
            info.scale = g.scale;
            const unsigned rows = unsigned(config.channels) * unsigned(g.nsym);
            gc::prepare_callbacks_kernel<<<(rows + 255) / 256, 256, 0, st>>>(
                g, fwd, info, s.callback_info.get(), s.in_rows.get(), s.out_rows.get(),
                s.cp_rows.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("prepare_callbacks_kernel");
            transform(s, g, fwd);
            return;
        }
        const std::size_t ns = std::size_t(g.nsym);
        const int C = config.channels;
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(s.bad.get(), 0, C * ns, st));

        const unsigned blocks = gc::rows_grid(std::size_t(C) * ns);
        if (fwd)
            gc::forward_in_kernel<<<blocks, gc::row_threads(g.n), 0, st>>>(
                g, in, d.window.get(), s.work.get(), s.bad.get());
        else
            gc::inverse_in_kernel<<<blocks, gc::row_threads(g.n), 0, st>>>(
                g, in, d.carrier_of_bin.get(), s.work.get(), s.bad.get());
        GPUMIMO_CUDA_CHECK_LAUNCH(fwd ? "forward_in_kernel" : "inverse_in_kernel");

        transform(s, g, fwd);

        if (fwd)
            gc::forward_out_kernel<<<blocks, gc::row_threads(g.ncar), 0, st>>>(
                g, s.work.get(), d.bins.get(), s.bad.get(), zeroed, out);
        else
            gc::inverse_out_kernel<<<blocks, gc::row_threads(g.max_cp + g.n), 0, st>>>(
                g, s.work.get(), d.window.get(), s.bad.get(), zeroed, out);
        GPUMIMO_CUDA_CHECK_LAUNCH(fwd ? "forward_out_kernel" : "inverse_out_kernel");
    }

    // Enqueues one chunk on st (its slot's stream); the caller commits it.
    void run_chunk(fft_device& d,
                   fft_slot& s,
                   cudaStream_t st,
                   const ofdm_fft_io& io,
                   std::size_t s0,
                   std::size_t ns,
                   bool in_pinned,
                   bool out_pinned)
    {
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d.id));
        const int C = config.channels;
        const std::size_t first = io.first_symbol + s0;
        const gc::chunk_geometry g = geometry(first, ns);
        const std::size_t ib = bytes_per_sample(config.input);
        const std::size_t ob = bytes_per_sample(config.output);
        const std::size_t in_off = layout.in_samples(io.first_symbol, s0);
        const std::size_t out_off = layout.out_samples(io.first_symbol, s0);
        const std::size_t in_width = g.in_pitch * ib, out_width = g.out_pitch * ob;
        const auto src = [&](int c) { return channel_input(io, c, ib) + in_off * ib; };
        const auto dst = [&](int c) { return channel_output(io, c, ob) + out_off * ob; };

        if (in_pinned && !io.in_channels) {
            const std::size_t in_stride = std::max(io.in_stride * ib, in_width);
            GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(s.raw_in.get(),
                                                 in_width,
                                                 src(0),
                                                 in_stride,
                                                 in_width,
                                                 C,
                                                 cudaMemcpyDefault,
                                                 st));
        } else if (in_pinned) {
            for (int c = 0; c < C; c++)
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.raw_in.get() + c * in_width,
                                                   src(c),
                                                   in_width,
                                                   cudaMemcpyDefault,
                                                   st));
        } else {
            for (int c = 0; c < C; c++)
                std::memcpy(s.host_in.get() + c * in_width, src(c), in_width);
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.raw_in.get(),
                                               s.host_in.get(),
                                               C * in_width,
                                               cudaMemcpyHostToDevice,
                                               st));
        }
        enqueue_kernels(d, s, g, s.raw_in.get(), s.raw_out.get(), st, s.zeroed.get());

        s.pending_staged = !out_pinned;
        if (out_pinned && !io.out_channels) {
            const std::size_t out_stride = std::max(io.out_stride * ob, out_width);
            GPUMIMO_CUDA_CHECK(cudaMemcpy2DAsync(dst(0),
                                                 out_stride,
                                                 s.raw_out.get(),
                                                 out_width,
                                                 out_width,
                                                 C,
                                                 cudaMemcpyDefault,
                                                 st));
        } else if (out_pinned) {
            for (int c = 0; c < C; c++)
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst(c),
                                                   s.raw_out.get() + c * out_width,
                                                   out_width,
                                                   cudaMemcpyDefault,
                                                   st));
        } else {
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.host_out.get(),
                                               s.raw_out.get(),
                                               C * out_width,
                                               cudaMemcpyDeviceToHost,
                                               st));
            for (int c = 0; c < C; c++)
                s.pending_out[c] = dst(c);
            s.pending_bytes = out_width;
        }
        gc::publish_count_kernel<<<1, 1, 0, st>>>(s.zeroed.get(), s.host_zeroed_mapped);
        GPUMIMO_CUDA_CHECK_LAUNCH("publish_count_kernel");
    }

    // The device-resident calls share the first slot's stream, work buffer and count
    // with the host-to-host chunks.
    void refuse_if_submitted() const
    {
        if (ring->in_flight())
            throw std::logic_error("gpu_ofdm_fft: finish() the submitted calls "
                                           "before a device-resident call");
    }

    // Device to device on the first device, ordered on the caller's stream, not waited
    // for. The single-pass transform shares nothing between calls but read-only tables,
    // so it runs on the caller's stream itself; the cuFFT paths use the first slot's
    // work buffer and plans, so they run on its stream, forked from the caller's and
    // joined back (calls from several streams take their turns there).
    void enqueue_device(const ofdm_fft_io& io, void* stream, unsigned* zeroed)
    {
        validate_io(layout, config.channels, io);
        if (io.in_channels || io.out_channels)
            throw std::invalid_argument(
                "gpu_ofdm_fft: device-resident calls take channels at strides only");
        if (io.nsym == 0)
            return;
        refuse_if_submitted();
        const gc::device_guard keep;
        fft_device& d = devices[0];
        fft_slot& s = d.slots[0];
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d.id));
        for (const void* p : { io.in, static_cast<const void*>(io.out) }) {
            cudaPointerAttributes attr;
            if (cudaPointerGetAttributes(&attr, p) != cudaSuccess ||
                attr.type != cudaMemoryTypeDevice || attr.device != d.id) {
                cudaGetLastError();
                throw std::invalid_argument(
                    "gpu_ofdm_fft: device-resident buffers must be memory of device " +
                    std::to_string(d.id));
            }
        }
        const cudaStream_t caller = static_cast<cudaStream_t>(stream);
        const bool forked = path != fft_fusion::single_pass;
        const cudaStream_t st = forked ? ring->stream(0) : caller; // slot 0 of device 0
        if (forked) {
            GPUMIMO_CUDA_CHECK(cudaEventRecord(s.fork.get(), caller));
            GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(st, s.fork.get(), 0));
        }
        unsigned* counter = zeroed ? zeroed : d.unread_zeroed.get();
        const std::size_t ib = bytes_per_sample(config.input);
        const std::size_t ob = bytes_per_sample(config.output);
        for (std::size_t s0 = 0; s0 < io.nsym; s0 += chunk) {
            gc::chunk_geometry g =
                geometry(io.first_symbol + s0, std::min(chunk, io.nsym - s0));
            g.in_pitch = io.in_stride; // the caller's layout, read and written in place
            g.out_pitch = io.out_stride;
            const unsigned char* in = static_cast<const unsigned char*>(io.in) +
                                      layout.in_samples(io.first_symbol, s0) * ib;
            unsigned char* out = static_cast<unsigned char*>(io.out) +
                                 layout.out_samples(io.first_symbol, s0) * ob;
            enqueue_kernels(d, s, g, in, out, st, counter);
        }
        if (forked) {
            GPUMIMO_CUDA_CHECK(cudaEventRecord(s.fork.get(), st));
            GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(caller, s.fork.get(), 0));
        }
    }

    // enqueue_device, then the zeroed count back to the host, waited for.
    std::size_t process_device(const ofdm_fft_io& io, void* stream)
    {
        validate_io(layout, config.channels, io);
        if (io.nsym == 0)
            return 0;
        refuse_if_submitted();
        const gc::device_guard keep;
        fft_device& d = devices[0];
        fft_slot& s = d.slots[0]; // its count: nothing submitted is pending (checked)
        GPUMIMO_CUDA_CHECK(cudaSetDevice(d.id));
        const cudaStream_t caller = static_cast<cudaStream_t>(stream);
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(d.waited_zeroed.get(), 0, sizeof(unsigned), caller));
        enqueue_device(io, stream, d.waited_zeroed.get());
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.host_zeroed.get(),
                                           d.waited_zeroed.get(),
                                           sizeof(unsigned),
                                           cudaMemcpyDeviceToHost,
                                           caller));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(s.waited.get(), caller));
        GPUMIMO_CUDA_CHECK(cudaEventSynchronize(s.waited.get()));
        return *s.host_zeroed.get();
    }

    // Streaming host to host: chunks take the ring's slots (over the devices) in turn
    // across calls. Counts of landed chunks gather in zeroed_since_finish until finish().
    std::size_t zeroed_since_finish = 0;

    void submit(const ofdm_fft_io& io)
    {
        validate_io(layout, config.channels, io);
        if (io.nsym == 0)
            return;
        const gc::device_guard keep;
        const std::size_t ib = bytes_per_sample(config.input);
        const std::size_t ob = bytes_per_sample(config.output);
        // Every channel's buffer page-locked or on a device (a device-resident stream
        // buffer): copied in place (cudaMemcpyDefault), else staged.
        bool in_pinned = true, out_pinned = true;
        const auto direct = [](const void* p) { return gc::is_pinned(p) || gc::is_device(p); };
        for (int c = 0; c < config.channels; c++) {
            in_pinned &= direct(channel_input(io, c, ib));
            out_pinned &= direct(channel_output(io, c, ob));
        }
        const auto land_count = [&](std::size_t k) { zeroed_since_finish += land(k); };
        try {
            for (std::size_t s0 = 0; s0 < io.nsym; s0 += chunk) {
                const std::size_t k = ring->next(land_count);
                run_chunk(devices[k % devices.size()],
                          slot_of(k),
                          ring->stream(k),
                          io,
                          s0,
                          std::min(chunk, io.nsym - s0),
                          in_pinned,
                          out_pinned);
                ring->commit(k);
            }
        } catch (...) {
            abandon();
            throw;
        }
    }

    std::size_t finish()
    {
        const gc::device_guard keep;
        try {
            ring->finish([&](std::size_t k) { zeroed_since_finish += land(k); });
        } catch (...) {
            abandon();
            throw;
        }
        const std::size_t zeroed = zeroed_since_finish;
        restart_stream();
        return zeroed;
    }

    void restart_stream() { zeroed_since_finish = 0; }

    // After a failure: nothing in flight may outlive the call that reports it, since
    // it writes to the caller's buffers; the counts gathered so far are dropped.
    void abandon()
    {
        const gc::device_guard keep;
        // A chunk cut short may have counted without publishing (the ring left its
        // device current).
        ring->abandon(
            [&](std::size_t k) { cudaMemset(slot_of(k).zeroed.get(), 0, sizeof(unsigned)); });
        restart_stream();
    }

    std::size_t process(const ofdm_fft_io& io)
    {
        submit(io);
        return finish();
    }
};

gpu_ofdm_fft::gpu_ofdm_fft(const ofdm_fft_config& config,
                           const std::vector<int>& devices,
                           std::size_t symbols_per_chunk,
                           int streams,
                           fft_fusion fusion)
    : d_impl(std::make_unique<impl>(config, devices, symbols_per_chunk, streams, fusion))
{
}
gpu_ofdm_fft::~gpu_ofdm_fft() = default;
const ofdm_fft_layout& gpu_ofdm_fft::layout() const { return d_impl->layout; }
std::size_t gpu_ofdm_fft::symbols_per_chunk() const { return d_impl->chunk; }
bool gpu_ofdm_fft::fused() const { return d_impl->path != fft_fusion::kernels; }
fft_fusion gpu_ofdm_fft::path() const { return d_impl->path; }
const std::string& gpu_ofdm_fft::fusion_note() const { return d_impl->fusion_note; }
std::size_t gpu_ofdm_fft::process(const ofdm_fft_io& io) { return d_impl->process(io); }
void gpu_ofdm_fft::submit(const ofdm_fft_io& io) { d_impl->submit(io); }
std::size_t gpu_ofdm_fft::finish() { return d_impl->finish(); }
std::size_t gpu_ofdm_fft::process_device(const ofdm_fft_io& io, void* stream)
{
    return d_impl->process_device(io, stream);
}
void gpu_ofdm_fft::enqueue_device(const ofdm_fft_io& io, void* stream, unsigned* zeroed)
{
    d_impl->enqueue_device(io, stream, zeroed);
}

namespace detail {
namespace {
// gpu_ofdm_fft as the factory's GPU engine (make_ofdm_fft_engine).
class gpu_fft_engine : public ofdm_fft_engine
{
public:
    gpu_fft_engine(const ofdm_fft_config& c, const ofdm_fft_options& o)
        : d_fft(c, o.devices, o.symbols_per_chunk)
    {
    }
    const char* backend() const override { return "cuda"; }
    std::string path() const override
    {
        switch (d_fft.path()) {
        case fft_fusion::single_pass:
            return "single-pass transform (conversions inside)";
        case fft_fusion::callbacks:
            return "cuFFT with the conversions as load/store callbacks: " + d_fft.fusion_note();
        default:
            return "conversion kernels around cuFFT: " + d_fft.fusion_note();
        }
    }
    std::size_t process(const ofdm_fft_io& io) override { return d_fft.process(io); }
    void submit(const ofdm_fft_io& io) override { d_fft.submit(io); }
    std::size_t finish() override { return d_fft.finish(); }

private:
    gpu_ofdm_fft d_fft;
};
} // namespace

std::unique_ptr<ofdm_fft_engine> make_gpu_ofdm_fft_engine(const ofdm_fft_config& config,
                                                          const ofdm_fft_options& options,
                                                          std::string*)
{
    return std::make_unique<gpu_fft_engine>(config, options);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
