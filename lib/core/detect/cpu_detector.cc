/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/cancel.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

cpu_detector::cpu_detector(
    algorithm algo, modulation mod, int nt, int nr, const detector_params& params)
    : d_algo(algo), d_const(mod), d_nt(nt), d_nr(nr), d_params(params)
{
    check_detector(algo, d_const, nt, nr, params);
}

cpu_detector::~cpu_detector() = default;

void cpu_detector::detect(const mimo_batch& given, float* llr, unsigned threads) const
{
    validate_batch(given, d_nt, d_nr, d_const.max_energy());
    if (given.batch == 0)
        return;
    // pi/2-BPSK: vector b holds symbol b of every stream, turned by j where b is odd;
    // turned back (y times -j, the noise as it was), it is BPSK, which the references
    // detect with the same points.
    mimo_batch batch = given;
    std::vector<std::complex<float>> turned;
    if (d_const.mod() == modulation::pi2_bpsk) {
        turned.assign(given.y, given.y + given.batch * std::size_t(d_nr));
        for (std::size_t b = 1; b < given.batch; b += 2)
            for (int r = 0; r < d_nr; r++)
                turned[b * std::size_t(d_nr) + std::size_t(r)] *= std::complex<float>(0, -1);
        batch.y = turned.data();
    }
    const group_detector_fn detect_group = registry_entry(d_algo).reference;
    const std::size_t nch = batch.num_channels();
    const std::size_t bits = bits_per_vector();

    // A cancel check set by the calling block (core/cancel.h): the calling thread polls
    // it while the channels run in worker threads, and a request stops them (psd's
    // search within its next expansion, the channels not reached erased) once the
    // block's work() call has run 100 ms.
    const cancel_check cancelled = current_cancel_check();
    constexpr std::chrono::milliseconds cancel_after(100);
    std::atomic<bool> stop{ false };
    auto run_channels = [&](std::size_t first, std::size_t last) {
        std::uint64_t hits = 0;
        for (std::size_t ch = first; ch < last; ch++) {
            const std::size_t v0 = ch * batch.group;
            const std::size_t count = std::min(batch.group, batch.batch - v0);
            float* out = llr + v0 * bits;
            if (stop.load(std::memory_order_relaxed)) {
                std::fill(out, out + count * bits, 0.0f);
                continue;
            }
            group_problem p{ batch.h + ch * d_nr * d_nt,
                             batch.noise_of_channel(ch),
                             batch.y + v0 * d_nr,
                             count,
                             d_nt,
                             d_nr,
                             &hits };
            p.stop = &stop;
            detect_group(d_const, d_params, p, out);
            if (d_params.llr_clip > 0.0f)
                for (std::size_t i = 0; i < count * bits; i++)
                    out[i] = std::clamp(out[i], -d_params.llr_clip, d_params.llr_clip);
        }
        d_budget_hits += hits;
    };

    unsigned nthreads =
        threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    nthreads = static_cast<unsigned>(std::min<std::size_t>(nthreads, nch));
    if (nthreads <= 1 && !cancelled) {
        run_channels(0, nch);
        return;
    }
    // Channels are independent: split them into contiguous ranges, one per thread.
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(nthreads);
    std::atomic<unsigned> running{ nthreads };
    for (unsigned t = 0; t < nthreads; t++) {
        const std::size_t first = nch * t / nthreads;
        const std::size_t last = nch * (t + 1) / nthreads;
        pool.emplace_back([&, t, first, last] {
            try {
                run_channels(first, last);
            } catch (...) {
                errors[t] = std::current_exception();
            }
            running--;
        });
    }
    // Only once the caller's scope (a block's work() call) has lasted cancel_after: the
    // quick calls (every detector but a psd search at low SNR) finish whole, so that a
    // stop() landing in one erases nothing a decoder downstream would count as its own
    // failure.
    if (cancelled) {
        const auto start = current_cancel_scope_start();
        while (running.load() > 0) {
            if (!stop.load() && std::chrono::steady_clock::now() - start > cancel_after && cancelled())
                stop = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    for (auto& th : pool)
        th.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
