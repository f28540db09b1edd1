/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM factory: the backend choice and the fallback policy (core/engine.h) around
 * the CPU reference and the GPU engine.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>

#include <algorithm>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

using cf = std::complex<float>;

// The reference, user after user.
class cpu_apsm_engine : public apsm_engine
{
public:
    explicit cpu_apsm_engine(const apsm_engine_config& c) : d_config(c) {}
    const char* backend() const override { return "cpu"; }
    void train(const cf* rx, std::size_t n, const cf* sent, std::vector<apsm_filter>& out) override
    {
        out.clear();
        for (int u = 0; u < d_config.users; u++)
            out.push_back(apsm_train(d_config.params, rx, n, d_config.antennas, sent + u * n));
    }
    void set_filters(const std::vector<apsm_filter>& f) override { d_filters = f; }
    const std::vector<apsm_filter>& filters() const { return d_filters; }
    void detect(const cf* rx, std::size_t n, cf* soft) override
    {
        for (std::size_t u = 0; u < d_filters.size(); u++)
            apsm_detect(d_filters[u], rx, n, soft + u * n);
    }

private:
    apsm_engine_config d_config;
    std::vector<apsm_filter> d_filters;
};

class apsm_with_fallback : public with_gpu_fallback<apsm_engine>
{
public:
    apsm_with_fallback(const apsm_engine_config& c, std::unique_ptr<apsm_engine> gpu)
        : with_gpu_fallback(std::move(gpu)), d_config(c), d_cpu(c)
    {
    }
    // APSM on the backend in use, then the least-squares guard (apsm_guard.h) through
    // the same backend's training and detection; detect() keeps the filters it had.
    void train(const cf* rx, std::size_t n, const cf* sent, std::vector<apsm_filter>& out) override
    {
        train_unguarded(rx, n, sent, out);
        if (!d_config.params.ls_guard)
            return;
        const std::vector<apsm_filter> in_use = d_cpu.filters();
        const apsm_trainer fit = [&](const cf* r, std::size_t m, const cf* s) {
            std::vector<apsm_filter> f;
            train_unguarded(r, m, s, f);
            return f;
        };
        const apsm_detector_fn held_out = [&](const std::vector<apsm_filter>& f,
                                              const cf* r,
                                              std::size_t m,
                                              cf* soft) {
            set_filters(f);
            detect_in_chunks(r, m, soft);
        };
        const apsm_guard_report report = guard_with_least_squares(
            d_config.params, rx, n, d_config.antennas, d_config.users, sent, out, fit, held_out);
        if (report.held_out > 0 && !in_use.empty())
            set_filters(in_use);
    }
    void set_filters(const std::vector<apsm_filter>& f) override
    {
        d_cpu.set_filters(f); // the CPU keeps them too: a GPU failure's redo needs them
        run([&](apsm_engine& gpu) { gpu.set_filters(f); }, [] {});
    }
    void detect(const cf* rx, std::size_t n, cf* soft) override
    {
        run([&](apsm_engine& gpu) { gpu.detect(rx, n, soft); },
            [&] { d_cpu.detect(rx, n, soft); });
    }
    float last_kernel_ms() const override
    {
        return d_fallback.on_gpu() ? d_gpu->last_kernel_ms() : -1.0f;
    }

private:
    void train_unguarded(const cf* rx, std::size_t n, const cf* sent, std::vector<apsm_filter>& out)
    {
        run([&](apsm_engine& gpu) { gpu.train(rx, n, sent, out); },
            [&] { d_cpu.train(rx, n, sent, out); });
    }
    // detect() over n vectors in calls of at most max_symbols, soft users x n.
    void detect_in_chunks(const cf* rx, std::size_t n, cf* soft)
    {
        const std::size_t step = std::max<std::size_t>(1, d_config.max_symbols);
        if (n <= step) {
            detect(rx, n, soft);
            return;
        }
        const std::size_t U = std::size_t(d_config.users);
        std::vector<cf> part(U * step);
        for (std::size_t t0 = 0; t0 < n; t0 += step) {
            const std::size_t m = std::min(step, n - t0);
            detect(rx + t0 * std::size_t(d_config.antennas), m, part.data());
            for (std::size_t u = 0; u < U; u++)
                std::copy(&part[u * m], &part[u * m] + m, soft + u * n + t0);
        }
    }

    apsm_engine_config d_config;
    cpu_apsm_engine d_cpu;
};

} // namespace

std::unique_ptr<apsm_engine> make_apsm_engine(const apsm_engine_config& c,
                                              const std::string& backend,
                                              std::string* fallback_reason)
{
    if (c.users < 1 || c.antennas < 1)
        throw std::invalid_argument("apsm engine: at least one user and one antenna");
    return std::make_unique<apsm_with_fallback>(
        c,
        choose_gpu_engine(
            backend,
            [&](std::string* why) { return detail::make_gpu_apsm_engine(c, why); },
            fallback_reason));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
