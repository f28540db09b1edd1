/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host runtime of the CUDA detectors: device selection, workspaces and pinned
 * staging allocated once, a chunked pipeline over several streams (mtt paper, section
 * 5.4: copies in, kernels and copies out of different chunks overlap), error collection.
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/slot_ring.cuh"
#include "detect/gpu_registry.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/detect/gpu_detector.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;

bool gpu_supports(algorithm algo,
                  modulation mod,
                  int nt,
                  int nr,
                  const detector_params& params,
                  std::string* why)
{
    return detail::gpu_detectors_take(mod, why) &&
           gc::gpu_registry_entry(algo).supports(constellation(mod), nt, nr, params, why);
}

namespace {

// Per-chunk device memory is capped so that large configurations (8x16 nway with 8
// passes needs 50 KB of workspace per channel matrix) still fit.
constexpr std::size_t kSlotBudgetBytes = std::size_t(512) << 20;

const unsigned long long kNone = ULLONG_MAX;

// Host to host, every copy costs the copy engine about 3 us besides its bytes (measured
// on the H200: docs/performance.md), and a chunk makes three copies in (y, H, N0) and
// one out. A chunk of 2^16 4x4 vectors moves 10.7 MB in; one of 2^16 2x2 vectors only
// 3.4 MB, so those fixed costs took 12% of the bus. The automatic size aims at ~8 MiB
// in per chunk: the power of two nearest 8 MiB / (bytes in per vector), within
// [2^16, 2^18] so that a chunk still fills the GPU and a call has chunks to overlap.
// A registry entry may ask for its own (psd: gpu_registry_entry's chunk_vectors).
std::size_t automatic_chunk(int nt, int nr)
{
    const double in_bytes = 8.0 * nr + 8.0 * nr * nt + 4.0; // y, H, N0 of one vector
    const int log2 = int(std::lround(std::log2(double(8 << 20) / in_bytes)));
    return std::size_t(1) << std::min(18, std::max(16, log2));
}
constexpr int kAutomaticStreams = 3;

// Device-resident calls copy nothing: their chunks exist so that one chunk's kernels
// overlap the next one's (psd's tails), so the automatic size does not apply to them:
// they keep this one (the default before it). Larger chunks given explicitly apply:
// they save launches where the problems are small (psd 2x2 16-QAM kernel-only 31 Gbit/s
// in chunks of 2^16, 71 in chunks of 2^18).
constexpr std::size_t kDeviceChunk = std::size_t(1) << 16;

// The buffers of one slot of the ring (the ring holds its stream and event).
struct slot {
    gc::event joined; // detect_device: this slot's chunks, for the caller's stream
    gc::device_buffer<float2> y, h;
    gc::device_buffer<float> noise, llr;
    gc::device_buffer<unsigned char> bad, ws;
    gc::device_buffer<float> y_power_limit;
    gc::device_buffer<gc::device_errors> errors;
    gc::device_buffer<unsigned> work_counter; // psd's persistent grid
    gc::pinned_buffer<float2> host_y, host_h;
    gc::pinned_buffer<float> host_noise, host_llr;
    gc::pinned_buffer<gc::device_errors> host_errors;
    float* pending_out = nullptr; // where host_llr goes once its chunk has ended
    std::size_t pending_floats = 0;
    bool errors_pending = false; // host_errors lands with `done` (the slot's last chunk)
};

} // namespace

struct gpu_detector::impl {
    algorithm algo;
    constellation con;
    detector_params params;
    const gc::gpu_detector_entry& entry;
    int device;
    bool dbl;
    int nt, nr, m, bits;
    std::size_t chunk;        // host to host
    std::size_t device_chunk; // detect_device
    std::size_t ws_per_channel;
    std::shared_ptr<const void> plan; // the entry's prepared state
    gc::device_buffer<double2> points_d;
    gc::device_buffer<float2> points_f;
    gc::device_buffer<unsigned char> from_levels, i_levels, q_levels;
    std::vector<slot> slots;
    std::unique_ptr<gc::slot_ring> ring; // one stream per slot
    gc::event fork; // detect_device: the caller's stream, for the slots' streams

    impl(algorithm algo,
         modulation mod,
         int nt_,
         int nr_,
         const detector_params& p,
         int dev,
         gpu_precision prec,
         std::size_t chunk_vectors,
         int nstreams)
        : algo(algo),
          con(mod),
          params(p),
          entry(gc::gpu_registry_entry(algo)),
          device(dev),
          dbl(prec == gpu_precision::double_),
          nt(nt_),
          nr(nr_),
          m(con.bits_per_symbol()),
          bits(nt_ * m)
    {
        check_detector(algo, con, nt, nr, p);
        std::string why;
        if (!gpu_supports(algo, mod, nt, nr, p, &why))
            throw std::invalid_argument(why);
        if (nstreams < 0)
            throw std::invalid_argument("streams must be >= 0 (0: automatic)");
        const bool automatic = chunk_vectors == 0;
        if (automatic)
            chunk_vectors = entry.chunk_vectors ? entry.chunk_vectors : automatic_chunk(nt, nr);
        if (nstreams == 0)
            nstreams = entry.streams ? entry.streams : kAutomaticStreams;
        int count = 0;
        GPUMIMO_CUDA_CHECK(cudaGetDeviceCount(&count));
        if (device < 0 || device >= count)
            throw std::invalid_argument("CUDA device " + std::to_string(device) +
                                        " does not exist (" + std::to_string(count) +
                                        " present)");
        const gc::device_guard keep_device;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));

        ws_per_channel = entry.workspace_bytes(nt, nr, p, dbl);
        plan = entry.prepare(con, nt, p);
        const std::size_t per_vector = std::size_t(nr) * 8 * 2 +
                                       std::size_t(nr) * nt * 8 * 2 + 8 +
                                       std::size_t(bits) * 4 * 2 + ws_per_channel + 1;
        chunk = std::max<std::size_t>(
            1, std::min(chunk_vectors, kSlotBudgetBytes / per_vector));
        device_chunk = automatic ? std::min(chunk, kDeviceChunk) : chunk;

        const constellation& c = con;
        const int q = c.size(), npam = c.pam_size();
        std::vector<double2> pd(q);
        std::vector<float2> pf(q);
        std::vector<unsigned char> fl(npam * npam), il(q), ql(q);
        for (int i = 0; i < q; i++) {
            pd[i] = make_double2(c.point(i).real(), c.point(i).imag());
            pf[i] = make_float2(float(c.point(i).real()), float(c.point(i).imag()));
            il[i] = static_cast<unsigned char>(c.in_phase_level(i));
            ql[i] = static_cast<unsigned char>(c.quadrature_level(i));
        }
        for (int li = 0; li < npam; li++)
            for (int lq = 0; lq < npam; lq++)
                fl[li * npam + lq] =
                    static_cast<unsigned char>(c.point_from_levels(li, lq));
        points_d = gc::device_buffer<double2>(q);
        points_f = gc::device_buffer<float2>(q);
        from_levels = gc::device_buffer<unsigned char>(fl.size());
        i_levels = gc::device_buffer<unsigned char>(q);
        q_levels = gc::device_buffer<unsigned char>(q);
        GPUMIMO_CUDA_CHECK(cudaMemcpy(
            points_d.get(), pd.data(), q * sizeof(double2), cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(cudaMemcpy(
            points_f.get(), pf.data(), q * sizeof(float2), cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(
            cudaMemcpy(from_levels.get(), fl.data(), fl.size(), cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(
            cudaMemcpy(i_levels.get(), il.data(), q, cudaMemcpyHostToDevice));
        GPUMIMO_CUDA_CHECK(
            cudaMemcpy(q_levels.get(), ql.data(), q, cudaMemcpyHostToDevice));

        ring = std::make_unique<gc::slot_ring>(std::size_t(nstreams), std::vector<int>{ device });
        for (int i = 0; i < nstreams; i++) {
            slot s;
            s.y = gc::device_buffer<float2>(chunk * nr);
            s.h = gc::device_buffer<float2>(chunk * nr * nt);
            s.noise = gc::device_buffer<float>(chunk);
            s.llr = gc::device_buffer<float>(chunk * bits);
            s.bad = gc::device_buffer<unsigned char>(chunk);
            s.y_power_limit = gc::device_buffer<float>(chunk);
            s.ws = gc::device_buffer<unsigned char>(
                std::max<std::size_t>(1, chunk * ws_per_channel));
            s.errors = gc::device_buffer<gc::device_errors>(1);
            s.work_counter = gc::device_buffer<unsigned>(1);
            s.host_y = gc::pinned_buffer<float2>(chunk * nr);
            s.host_h = gc::pinned_buffer<float2>(chunk * nr * nt);
            s.host_noise = gc::pinned_buffer<float>(chunk);
            s.host_llr = gc::pinned_buffer<float>(chunk * bits);
            s.host_errors = gc::pinned_buffer<gc::device_errors>(1);
            slots.push_back(std::move(s));
        }
    }

    gc::chunk_args args_for(const slot& s) const
    {
        gc::chunk_args a{};
        a.nt = nt;
        a.nr = nr;
        a.m = m;
        a.list_llr_clip = params.list_llr_clip;
        a.llr_clip = params.llr_clip;
        a.mtt_one_pass = params.mtt.one_pass;
        a.points_d = points_d.get();
        a.points_f = points_f.get();
        a.from_levels = from_levels.get();
        a.i_levels = i_levels.get();
        a.q_levels = q_levels.get();
        a.pam_scale = con.scale();
        a.channel_bad = s.bad.get();
        a.y_power_limit = s.y_power_limit.get();
        a.max_symbol_energy = con.max_energy();
        a.errors = s.errors.get();
        return a;
    }

    // Where a batch's indices start among the batches whose errors are gathered
    // together (submit() to finish()): its first vector, matrix and N0 value.
    struct batch_offsets {
        unsigned long long vectors = 0, channels = 0, noise = 0;
    };

    // A chunk of b: vectors [v0, v1), the matrices they use (from v0 / b.group) and the
    // indices its error reports give, b counted from `at`. The data pointers are the
    // caller's to set.
    gc::chunk_args args_for(const slot& s,
                            const mimo_batch& b,
                            std::size_t v0,
                            std::size_t v1,
                            const batch_offsets& at) const
    {
        gc::chunk_args a = args_for(s);
        const std::size_t c0 = v0 / b.group, c1 = (v1 - 1) / b.group + 1;
        a.scalar_noise = b.scalar_noise;
        a.n = v1 - v0;
        a.nch = c1 - c0;
        a.group = b.group;
        a.first_offset = v0 - c0 * b.group;
        a.base_vector = at.vectors + v0;
        a.base_channel = at.channels + c0;
        a.base_noise = at.noise + (b.scalar_noise ? 0 : c0);
        return a;
    }

    void run_chunk(const gc::chunk_args& a, slot& s, cudaStream_t st)
    {
        gc::launch_check_channels(a, st);
        entry.launch({ a, &params, plan.get(), s.ws.get(), s.work_counter.get(), dbl }, st);
        gc::launch_finish(a, st);
    }

    void reset_errors(slot& s, cudaStream_t st)
    {
        GPUMIMO_CUDA_CHECK(gc::reset_device_errors(s.errors.get(), st));
    }

    static void merge(gc::device_errors& into, const gc::device_errors& e)
    {
        into.first_nonfinite_vector =
            std::min(into.first_nonfinite_vector, e.first_nonfinite_vector);
        into.first_nonfinite_channel =
            std::min(into.first_nonfinite_channel, e.first_nonfinite_channel);
        into.first_singular_channel =
            std::min(into.first_singular_channel, e.first_singular_channel);
        into.first_bad_noise = std::min(into.first_bad_noise, e.first_bad_noise);
        into.first_out_of_range_vector =
            std::min(into.first_out_of_range_vector, e.first_out_of_range_vector);
        into.search_budget_hits += e.search_budget_hits;
    }

    // psd's searches that stopped at their node budget, over every call so far.
    std::atomic<std::uint64_t> budget_hits{ 0 };

    static void throw_if_bad(const gc::device_errors& e)
    {
        if (e.first_nonfinite_vector != kNone)
            throw std::invalid_argument("y[" + std::to_string(e.first_nonfinite_vector) +
                                        "] is not finite or beyond +-1e15 (its LLRs were set to 0)");
        if (e.first_nonfinite_channel != kNone)
            throw std::invalid_argument(
                "H[" + std::to_string(e.first_nonfinite_channel) +
                "] is not finite or beyond +-1e15 (its vectors' LLRs were set to 0)");
        if (e.first_singular_channel != kNone)
            throw std::invalid_argument(
                "H[" + std::to_string(e.first_singular_channel) +
                "] is rank-deficient (its vectors' LLRs were set to 0)");
        if (e.first_bad_noise != kNone)
            throw std::invalid_argument(
                "noise_var[" + std::to_string(e.first_bad_noise) +
                "] must be finite and > 0 (its vectors' LLRs were set to 0)");
        if (e.first_out_of_range_vector != kNone)
            throw std::invalid_argument(
                "y[" + std::to_string(e.first_out_of_range_vector) +
                "] has more than 1e8 times the power its H and N0 allow: it is not "
                "y = H s + n (its LLRs were set to 0)");
    }

    // Streaming host to host (submit/finish): chunks take the ring's slots in turn across
    // calls. Errors gather in the slots' records from the first submit() after a
    // finish() (errors_reset) to the next finish(), indices counted over the batches
    // submitted in between (`submitted`).
    bool errors_reset = false;
    batch_offsets submitted;

    void detect(const mimo_batch& b, float* llr)
    {
        submit(b, llr);
        finish();
    }

    void submit(const mimo_batch& b, float* llr)
    {
        try {
            submit_chunks(b, llr);
        } catch (...) {
            abandon();
            throw;
        }
    }

    void finish()
    {
        gc::device_errors all = gc::no_device_errors();
        try {
            const gc::device_guard keep_device;
            GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
            ring->finish([&](std::size_t k) { land(slots[k]); });
            for (slot& s : slots) {
                if (s.errors_pending)
                    merge(all, *s.host_errors.get());
                s.errors_pending = false;
            }
        } catch (...) {
            abandon();
            throw;
        }
        restart_stream();
        budget_hits += all.search_budget_hits;
        throw_if_bad(all);
    }

    // After a failure: nothing pending may outlive the call that reports it, since it
    // writes to the caller's buffers.
    void abandon()
    {
        ring->abandon([&](std::size_t k) { slots[k].pending_out = nullptr; });
        for (slot& s : slots)
            s.errors_pending = false;
        restart_stream();
    }

    void restart_stream()
    {
        errors_reset = false;
        submitted = batch_offsets();
    }

    void submit_chunks(const mimo_batch& b, float* llr)
    {
        validate_layout(b, nt, nr); // samples, matrices and N0 are checked on the device
        if (b.batch == 0)
            return;
        const gc::device_guard keep_device;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        if (!errors_reset) {
            for (std::size_t k = 0; k < slots.size(); k++)
                reset_errors(slots[k], ring->stream(k));
            errors_reset = true;
        }
        // Pinned (page-locked or registered) caller memory is copied directly; other
        // memory goes through the pinned staging buffers, an extra host memcpy.
        const struct {
            bool y, h, noise, llr;
        } pinned{ gc::is_pinned(b.y),
                  gc::is_pinned(b.h),
                  gc::is_pinned(b.noise_var),
                  gc::is_pinned(llr) };

        const std::size_t chunks = (b.batch + chunk - 1) / chunk;
        for (std::size_t index = 0; index < chunks; index++) {
            const std::size_t k = ring->next([&](std::size_t j) { land(slots[j]); });
            slot& s = slots[k];
            const std::size_t v0 = index * chunk;
            gc::chunk_args a =
                args_for(s, b, v0, std::min(b.batch, v0 + chunk), submitted);
            const std::size_t n = a.n, nch = a.nch, c0 = v0 / b.group;
            const cudaStream_t st = ring->stream(k);

            const std::size_t nn = b.scalar_noise ? 1 : nch;
            copy_in(s.y.get(),
                    s.host_y.get(),
                    b.y + v0 * nr,
                    n * nr * sizeof(float2),
                    pinned.y,
                    st);
            copy_in(s.h.get(),
                    s.host_h.get(),
                    b.h + c0 * nr * nt,
                    nch * nr * nt * sizeof(float2),
                    pinned.h,
                    st);
            copy_in(s.noise.get(),
                    s.host_noise.get(),
                    b.noise_var + (b.scalar_noise ? 0 : c0),
                    nn * sizeof(float),
                    pinned.noise,
                    st);

            a.y = s.y.get();
            a.h = s.h.get();
            a.noise = s.noise.get();
            a.llr = s.llr.get();
            run_chunk(a, s, st);

            float* out = pinned.llr ? llr + v0 * bits : s.host_llr.get();
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(
                out, s.llr.get(), n * bits * sizeof(float), cudaMemcpyDeviceToHost, st));
            // The slot's error record follows its last chunk's LLRs of the call, so
            // that finish() costs no copy and synchronisation per slot.
            if (index + slots.size() >= chunks) {
                GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.host_errors.get(),
                                                   s.errors.get(),
                                                   sizeof(gc::device_errors),
                                                   cudaMemcpyDeviceToHost,
                                                   st));
                s.errors_pending = true;
            }
            ring->commit(k);
            s.pending_out = llr + v0 * bits;
            s.pending_floats = pinned.llr ? 0 : n * bits; // pinned: nothing left to copy
        }
        submitted.vectors += b.batch;
        submitted.channels += b.num_channels();
        submitted.noise += b.scalar_noise ? 1 : b.num_channels();
    }

    static void copy_in(void* dev,
                        void* staging,
                        const void* src,
                        std::size_t bytes,
                        bool pinned,
                        cudaStream_t st)
    {
        if (!pinned) {
            std::memcpy(staging, src, bytes);
            src = staging;
        }
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dev, src, bytes, cudaMemcpyHostToDevice, st));
    }

    // Hands an ended chunk's LLRs to the caller (the ring waited for it).
    void land(slot& s)
    {
        if (s.pending_floats)
            std::memcpy(
                s.pending_out, s.host_llr.get(), s.pending_floats * sizeof(float));
        s.pending_out = nullptr;
    }

    bool device_errors_reset = false;

    // Chunks of device-resident input run on the slots' streams, forked from and
    // joined back into the caller's stream, so that one chunk's kernels overlap the
    // next one's. That matters where the work per vector varies: psd's persistent grid
    // hands problems out within a chunk only, and a chunk lasts as long as its hardest
    // problem, whose single-thread search can outlast the chunk's bulk many times over.
    // Every chunk reports bad input into slot 0's error record (atomic minima).
    void detect_device(const mimo_batch& b, float* llr, cudaStream_t st)
    {
        validate_layout(b, nt, nr);
        if (errors_reset) // the slots' streams and error records are a submit()'s
            throw std::logic_error(
                "gpu_detector: finish() the submitted batches before detect_device()");
        const gc::device_guard keep_device;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        if (!device_errors_reset) {
            reset_errors(slots[0], st);
            device_errors_reset = true;
        }
        const std::size_t chunk = device_chunk;
        const std::size_t chunks = (b.batch + chunk - 1) / chunk;
        const std::size_t used = std::min(chunks, slots.size());
        if (used > 1) {
            GPUMIMO_CUDA_CHECK(cudaEventRecord(fork.get(), st));
            for (std::size_t i = 0; i < used; i++)
                GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(ring->stream(i), fork.get(), 0));
        }
        for (std::size_t index = 0; index < chunks; index++) {
            slot& s = slots[index % used];
            const cudaStream_t run_on = used > 1 ? ring->stream(index % used) : st;
            const std::size_t v0 = index * chunk;
            gc::chunk_args a =
                args_for(s, b, v0, std::min(b.batch, v0 + chunk), batch_offsets());
            const std::size_t c0 = v0 / b.group;
            a.errors = slots[0].errors.get();
            a.y = reinterpret_cast<const float2*>(b.y) + v0 * nr;
            a.h = reinterpret_cast<const float2*>(b.h) + c0 * nr * nt;
            a.noise = b.noise_var + (b.scalar_noise ? 0 : c0);
            a.llr = llr + v0 * bits;
            run_chunk(a, s, run_on);
        }
        if (used > 1)
            for (std::size_t i = 0; i < used; i++) {
                GPUMIMO_CUDA_CHECK(cudaEventRecord(slots[i].joined.get(), ring->stream(i)));
                GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(st, slots[i].joined.get(), 0));
            }
    }

    void check_device_errors(cudaStream_t st)
    {
        slot& s = slots[0];
        if (!device_errors_reset)
            return;
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(s.host_errors.get(),
                                           s.errors.get(),
                                           sizeof(gc::device_errors),
                                           cudaMemcpyDeviceToHost,
                                           st));
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
        device_errors_reset = false;
        budget_hits += s.host_errors.get()->search_budget_hits;
        throw_if_bad(*s.host_errors.get());
    }
};

gpu_detector::gpu_detector(algorithm algo,
                           modulation mod,
                           int nt,
                           int nr,
                           const detector_params& params,
                           int device,
                           gpu_precision precision,
                           std::size_t chunk_vectors,
                           int streams)
{
    // The impl's members (the fork event) are made on the device current at their
    // creation, before its constructor's body selects `device`: select it first (a
    // device that does not exist is left to the impl, which refuses it by name).
    const gc::device_guard keep_device;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && device >= 0 && device < count)
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_impl = std::make_unique<impl>(algo, mod, nt, nr, params, device, precision, chunk_vectors,
                                    streams);
}

gpu_detector::~gpu_detector() = default;

int gpu_detector::bits_per_vector() const { return d_impl->bits; }
int gpu_detector::device() const { return d_impl->device; }

void gpu_detector::detect(const mimo_batch& batch, float* llr)
{
    d_impl->detect(batch, llr);
}

void gpu_detector::submit(const mimo_batch& batch, float* llr)
{
    d_impl->submit(batch, llr);
}

void gpu_detector::finish() { d_impl->finish(); }

void gpu_detector::detect_device(const mimo_batch& batch, float* llr, void* stream)
{
    d_impl->detect_device(batch, llr, static_cast<cudaStream_t>(stream));
}

void gpu_detector::check_device_errors(void* stream)
{
    d_impl->check_device_errors(static_cast<cudaStream_t>(stream));
}

std::uint64_t gpu_detector::search_budget_hits() const
{
    return d_impl->budget_hits.load();
}

namespace detail {
namespace {
// gpu_detector as the factory's GPU engine (make_detector_engine).
class gpu_detector_engine : public detector_engine
{
public:
    explicit gpu_detector_engine(const detector_config& c)
        : d_det(c.spec.algo(),
                c.mod,
                c.nt,
                c.nr,
                c.spec.params(),
                c.device,
                c.double_precision ? gpu_precision::double_ : gpu_precision::single)
    {
    }
    const char* backend() const override { return "cuda"; }
    int bits_per_vector() const override { return d_det.bits_per_vector(); }
    void detect(const mimo_batch& batch, float* llr, unsigned) override
    {
        d_det.detect(batch, llr);
    }
    std::uint64_t search_budget_hits() const override
    {
        return d_det.search_budget_hits();
    }

private:
    gpu_detector d_det;
};
} // namespace

std::unique_ptr<detector_engine> make_gpu_detector_engine(const detector_config& c,
                                                          std::string* why)
{
    if (!gpu_supports(c.spec.algo(), c.mod, c.nt, c.nr, c.spec.params(), why))
        return nullptr;
    return std::make_unique<gpu_detector_engine>(c);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
