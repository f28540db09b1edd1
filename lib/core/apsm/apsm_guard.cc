/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The least-squares guard (apsm_guard.h): a held-out quarter of the pilots decides, user
 * by user, whether APSM's kernel corrections generalise or least squares does better.
 */
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

using cf = std::complex<float>;

double mean_squared_error(const cf* soft, const cf* sent, std::size_t n)
{
    double sum = 0;
    for (std::size_t t = 0; t < n; t++) {
        const double e = std::norm(std::complex<double>(soft[t]) - std::complex<double>(sent[t]));
        sum += std::isfinite(e) ? e : 1e30; // a NaN soft symbol is no match
    }
    return sum / double(n);
}

// The least-squares filter in the shape of the user's APSM filter: its dictionary,
// input scale and weights, the Gaussian coefficients zero and the linear part scaled so
// that wL lin.(s r) is least squares' lin.r. Every user's filter then still comes from
// one training, as the GPU detector needs (it computes the kernel values once for all
// users).
apsm_filter least_squares_in_shape_of(const apsm_filter& apsm, const apsm_filter& ls)
{
    apsm_filter f = apsm;
    std::fill(f.gauss.begin(), f.gauss.end(), 0.0);
    const double to_apsm = 1.0 / (apsm.linear_weight * apsm.input_scale);
    for (std::size_t i = 0; i < f.lin.size(); i++)
        f.lin[i] = ls.lin[i] * to_apsm;
    f.noise_variance = ls.noise_variance;
    return f;
}

} // namespace

apsm_guard_report guard_with_least_squares(const apsm_params& p,
                                           const cf* rx,
                                           std::size_t n,
                                           int antennas,
                                           int users,
                                           const cf* sent,
                                           std::vector<apsm_filter>& filters,
                                           const apsm_trainer& train,
                                           const apsm_detector_fn& detect)
{
    apsm_guard_report report;
    const std::size_t held = n / 4, fit = n - held;
    if (!p.ls_guard || p.linear_weight <= 0 || n < 16 || fit < std::size_t(antennas) ||
        filters.size() != std::size_t(users))
        return report;
    // Each user's fitted part of the sent symbols, user-major as the trainers take them.
    std::vector<cf> sent_fit(std::size_t(users) * fit);
    for (int u = 0; u < users; u++)
        std::copy(sent + u * n, sent + u * n + fit, sent_fit.begin() + u * fit);
    const std::vector<apsm_filter> fitted = train(rx, fit, sent_fit.data());
    const cf* rx_held = rx + fit * std::size_t(antennas);
    std::vector<cf> soft(std::size_t(users) * held), ls_soft(held);
    detect(fitted, rx_held, held, soft.data());

    report.fitted = fit;
    report.held_out = held;
    for (int u = 0; u < users; u++) {
        const cf* sent_held = sent + u * n + fit;
        const double apsm_mse = mean_squared_error(&soft[u * held], sent_held, held);
        double ls_mse = INFINITY;
        try {
            const apsm_filter ls = ls_train(rx, fit, antennas, &sent_fit[u * fit]);
            apsm_detect(ls, rx_held, held, ls_soft.data());
            ls_mse = mean_squared_error(ls_soft.data(), sent_held, held);
        } catch (const std::invalid_argument&) { // singular: no least squares to take
        }
        const bool take_ls = ls_mse < apsm_mse / (1.0 - apsm_guard_margin);
        if (take_ls)
            filters[u] = least_squares_in_shape_of(filters[u], ls_train(rx, n, antennas, sent + u * n));
        report.least_squares.push_back(take_ls);
        report.apsm_mse.push_back(apsm_mse);
        report.ls_mse.push_back(ls_mse);
    }
    return report;
}

std::vector<apsm_filter> apsm_train_guarded(const apsm_params& p,
                                            const cf* rx,
                                            std::size_t n,
                                            int antennas,
                                            int users,
                                            const cf* sent,
                                            apsm_guard_report* report)
{
    const apsm_trainer train = [&](const cf* r, std::size_t m, const cf* s) {
        std::vector<apsm_filter> out;
        for (int u = 0; u < users; u++)
            out.push_back(apsm_train(p, r, m, antennas, s + u * m));
        return out;
    };
    const apsm_detector_fn detect = [](const std::vector<apsm_filter>& f,
                                       const cf* r,
                                       std::size_t m,
                                       cf* soft) {
        for (std::size_t u = 0; u < f.size(); u++)
            apsm_detect(f[u], r, m, soft + u * m);
    };
    std::vector<apsm_filter> filters = train(rx, n, sent);
    const apsm_guard_report r =
        guard_with_least_squares(p, rx, n, antennas, users, sent, filters, train, detect);
    if (report)
        *report = r;
    return filters;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
