/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

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

void cpu_detector::detect(const mimo_batch& batch, float* llr, unsigned threads) const
{
    validate_batch(batch, d_nt, d_nr, d_const.max_energy());
    if (batch.batch == 0)
        return;
    const group_detector_fn detect_group = registry_entry(d_algo).reference;
    const std::size_t nch = batch.num_channels();
    const std::size_t bits = bits_per_vector();

    auto run_channels = [&](std::size_t first, std::size_t last) {
        for (std::size_t ch = first; ch < last; ch++) {
            const std::size_t v0 = ch * batch.group;
            const std::size_t count = std::min(batch.group, batch.batch - v0);
            const group_problem p{ batch.h + ch * d_nr * d_nt,
                                        batch.noise_of_channel(ch),
                                        batch.y + v0 * d_nr,
                                        count,
                                        d_nt,
                                        d_nr };
            float* out = llr + v0 * bits;
            detect_group(d_const, d_params, p, out);
            if (d_params.llr_clip > 0.0f)
                for (std::size_t i = 0; i < count * bits; i++)
                    out[i] = std::clamp(out[i], -d_params.llr_clip, d_params.llr_clip);
        }
    };

    unsigned nthreads =
        threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    nthreads = static_cast<unsigned>(std::min<std::size_t>(nthreads, nch));
    if (nthreads <= 1) {
        run_channels(0, nch);
        return;
    }
    // Channels are independent: split them into contiguous ranges, one per thread.
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(nthreads);
    for (unsigned t = 0; t < nthreads; t++) {
        const std::size_t first = nch * t / nthreads;
        const std::size_t last = nch * (t + 1) / nthreads;
        pool.emplace_back([&, t, first, last] {
            try {
                run_channels(first, last);
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
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
