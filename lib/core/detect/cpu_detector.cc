/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpumimo {
namespace core {

algorithm parse_algorithm(const std::string& name)
{
    static const std::pair<const char*, algorithm> names[] = {
        { "ml", algorithm::ml },     { "zf", algorithm::zf },
        { "mmse", algorithm::mmse }, { "kbest", algorithm::kbest },
        { "mtt", algorithm::mtt },   { "nway", algorithm::nway },
        { "psd", algorithm::psd },
    };
    for (const auto& [n, a] : names)
        if (name == n)
            return a;
    throw std::invalid_argument("unknown algorithm '" + name +
                                "' (expected ml, zf, mmse, kbest, mtt, nway or psd)");
}

std::string to_string(algorithm algo)
{
    switch (algo) {
    case algorithm::ml:
        return "ml";
    case algorithm::zf:
        return "zf";
    case algorithm::mmse:
        return "mmse";
    case algorithm::kbest:
        return "kbest";
    case algorithm::mtt:
        return "mtt";
    case algorithm::nway:
        return "nway";
    case algorithm::psd:
        return "psd";
    }
    return "?";
}

namespace {

ref::group_detector_fn reference_of(algorithm algo)
{
    switch (algo) {
    case algorithm::ml:
        return ref::ml_detect;
    case algorithm::zf:
        return ref::zf_detect;
    case algorithm::mmse:
        return ref::mmse_detect;
    case algorithm::kbest:
        return ref::kbest_detect;
    case algorithm::mtt:
        return ref::mtt_detect;
    case algorithm::nway:
        return ref::nway_detect;
    case algorithm::psd:
        return ref::psd_detect;
    }
    throw std::invalid_argument("invalid algorithm");
}

void check_config(
    algorithm algo, const constellation& c, int nt, int nr, const detector_params& p)
{
    if (nt < 1 || nt > max_nt)
        throw std::invalid_argument("nt = " + std::to_string(nt) + " must be 1.." +
                                    std::to_string(max_nt));
    if (nr < nt || nr > max_nr)
        throw std::invalid_argument("nr = " + std::to_string(nr) + " must be nt.." +
                                    std::to_string(max_nr) +
                                    " (nt = " + std::to_string(nt) + ")");
    if (!(std::isfinite(p.llr_clip) && p.llr_clip >= 0.0f))
        throw std::invalid_argument("llr_clip must be >= 0 (0: no clipping)");
    const bool list_detector = algo == algorithm::kbest || algo == algorithm::nway ||
                               algo == algorithm::psd ||
                               (algo == algorithm::mtt && p.mtt_one_pass);
    if (list_detector && !(std::isfinite(p.list_llr_clip) && p.list_llr_clip > 0.0f))
        throw std::invalid_argument("list_llr_clip must be finite and > 0");
    switch (algo) {
    case algorithm::ml:
        if (double(nt) * c.bits_per_symbol() > 24)
            throw std::invalid_argument(
                "ml is exhaustive and limited to |Q|^nt <= 2^24 candidates; " +
                to_string(c.mod()) + " with nt = " + std::to_string(nt) + " has 2^" +
                std::to_string(nt * c.bits_per_symbol()));
        break;
    case algorithm::kbest:
        if (p.kbest_k < 1 || p.kbest_k > 4096)
            throw std::invalid_argument("kbest_k must be 1..4096");
        break;
    case algorithm::nway:
        if (p.nway_passes < 0 || p.nway_passes > nt)
            throw std::invalid_argument("nway_passes must be 1..nt (or 0 for nt)");
        break;
    case algorithm::psd:
        if (!(p.psd_lvl.empty() && p.psd_exp.empty()))
            ref::psd_check_levels(nt, c.mod(), p.psd_lvl, p.psd_exp);
        break;
    default:
        break;
    }
}

} // namespace

cpu_detector::cpu_detector(
    algorithm algo, modulation mod, int nt, int nr, const detector_params& params)
    : d_algo(algo), d_const(mod), d_nt(nt), d_nr(nr), d_params(params)
{
    check_config(algo, d_const, nt, nr, params);
}

cpu_detector::~cpu_detector() = default;

void cpu_detector::detect(const mimo_batch& batch, float* llr, unsigned threads) const
{
    validate_batch(batch, d_nt, d_nr, d_const.max_energy());
    if (batch.batch == 0)
        return;
    const ref::group_detector_fn detect_group = reference_of(d_algo);
    const std::size_t nch = batch.num_channels();
    const std::size_t bits = bits_per_vector();

    auto run_channels = [&](std::size_t first, std::size_t last) {
        for (std::size_t ch = first; ch < last; ch++) {
            const std::size_t v0 = ch * batch.group;
            const std::size_t count = std::min(batch.group, batch.batch - v0);
            const ref::group_problem p{ batch.h + ch * d_nr * d_nt,
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
