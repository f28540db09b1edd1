/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM factory: the backend choice and the fallback policy (core/engine.h) around
 * the CPU reference and the GPU engine.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>

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
        : with_gpu_fallback(std::move(gpu)), d_cpu(c)
    {
    }
    void train(const cf* rx, std::size_t n, const cf* sent, std::vector<apsm_filter>& out) override
    {
        run([&](apsm_engine& gpu) { gpu.train(rx, n, sent, out); },
            [&] { d_cpu.train(rx, n, sent, out); });
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
