/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Payload detection on the host (the regrouping around any detector_engine), the
 * backend choice and the fallback policy (core/engine.h).
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/carrier_major.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class host_payload_detector : public payload_detector
{
public:
    host_payload_detector(const numerology& num,
                          int nt,
                          int nr,
                          std::unique_ptr<detector_engine> detector,
                          modulation payload)
        : d_detector(std::move(detector)),
          d_payload(payload),
          d_data(data_carriers(num)),
          d_used(std::size_t(num.used_carriers)),
          d_nt(nt),
          d_nr(nr),
          d_bits(std::size_t(d_detector->bits_per_vector()))
    {
        if (nt < 1 || nr < nt)
            throw std::invalid_argument("payload_detector: need 1 <= nt <= nr");
    }
    const char* backend() const override { return d_detector->backend(); }
    std::size_t llrs_per_symbol() const override { return d_data.size() * d_bits; }
    gpu_fallback* fallback() override { return d_detector->fallback(); }
    std::uint64_t search_budget_hits() const override { return d_detector->search_budget_hits(); }

    std::size_t detect(const payload_run& run, float* llr, std::uint8_t* erased) override
    {
        const std::size_t n = run.symbols, D = d_data.size();
        if (n == 0)
            return 0;
        // The data carriers' H and N0 (the run's carriers each have their own).
        const std::size_t m = std::size_t(d_nr) * d_nt;
        d_h.resize(D * m);
        d_noise.resize(D);
        for (std::size_t d = 0; d < D; d++) {
            const std::size_t c = std::size_t(d_data[d]);
            std::copy_n(run.h + c * m, m, d_h.begin() + d * m);
            d_noise[d] = run.noise[c];
        }
        // Carrier-major: group = n gives each carrier its own H. Unusable values go in
        // as zeros, their symbols erased.
        const carrier_major order{ D, n };
        d_y.resize(order.vectors() * d_nr);
        std::fill_n(erased, n, 0);
        for (int r = 0; r < d_nr; r++) {
            const std::complex<float>* x = run.carriers[r];
            for (std::size_t s = 0; s < n; s++)
                for (std::size_t d = 0; d < D; d++) {
                    std::complex<float> v = x[s * d_used + std::size_t(d_data[d])];
                    if (!is_usable(v)) {
                        erased[s] = 1;
                        v = 0;
                    }
                    v *= payload_turn_back(d_payload, d);
                    d_y[order.detector_vector(d, s) * d_nr + r] = v;
                }
        }
        mimo_batch b;
        b.y = d_y.data();
        b.h = d_h.data();
        b.noise_var = d_noise.data();
        b.scalar_noise = false;
        b.batch = order.vectors();
        b.nt = d_nt;
        b.nr = d_nr;
        b.group = n;
        d_llr.resize(order.vectors() * d_bits);
        d_detector->detect(b, d_llr.data());
        // Back to the frame's order, symbol-major.
        std::size_t count = 0;
        for (std::size_t s = 0; s < n; s++) {
            count += erased[s];
            for (std::size_t d = 0; d < D; d++)
                for (std::size_t k = 0; k < d_bits; k++) {
                    const float v = d_llr[order.detector_vector(d, s) * d_bits + k];
                    llr[order.frame_vector(d, s) * d_bits + k] =
                        erased[s] || !std::isfinite(v) ? 0.0f : v;
                }
        }
        return count;
    }

private:
    std::unique_ptr<detector_engine> d_detector;
    const modulation d_payload; // the frame's (pi/2-BPSK: odd data carriers turned back)
    const std::vector<int> d_data;
    const std::size_t d_used;
    const int d_nt, d_nr;
    const std::size_t d_bits;
    std::vector<std::complex<float>> d_h, d_y;
    std::vector<float> d_noise, d_llr;
};

} // namespace

std::size_t payload_detector::detect_runs(const payload_run* runs,
                                          std::size_t count,
                                          float* const* llr,
                                          std::uint8_t* const* erased,
                                          std::uint8_t* refused,
                                          std::string* why)
{
    std::size_t erased_symbols = 0;
    bool first_refusal = true;
    for (std::size_t i = 0; i < count; i++) {
        refused[i] = 0;
        try {
            erased_symbols += detect(runs[i], llr[i], erased[i]);
        } catch (const std::invalid_argument& e) {
            refused[i] = 1;
            if (why && first_refusal)
                *why = e.what();
            first_refusal = false;
        }
    }
    return erased_symbols;
}

namespace {

class payload_detector_with_fallback : public with_gpu_fallback<payload_detector>
{
public:
    payload_detector_with_fallback(std::unique_ptr<payload_detector> cpu,
                                   std::unique_ptr<payload_detector> gpu,
                                   int nr)
        : with_gpu_fallback(std::move(gpu)), d_cpu(std::move(cpu)), d_nr(nr)
    {
    }
    std::size_t llrs_per_symbol() const override { return d_cpu->llrs_per_symbol(); }
    std::size_t detect_runs(const payload_run* runs,
                            std::size_t count,
                            float* const* llr,
                            std::uint8_t* const* erased,
                            std::uint8_t* refused,
                            std::string* why) override
    {
        return run_in_place(
            "payload_detector",
            [&] {
                for (std::size_t i = 0; i < count; i++)
                    if (on_device(runs[i], llr[i]))
                        return true;
                return false;
            },
            [&](payload_detector& gpu) { return gpu.detect_runs(runs, count, llr, erased, refused, why); },
            [&] { return d_cpu->detect_runs(runs, count, llr, erased, refused, why); });
    }
    std::size_t detect(const payload_run& payload, float* llr, std::uint8_t* erased) override
    {
        // Every output is rewritten by the CPU after a GPU failure mid-call, where it
        // can reach the carriers.
        return run_in_place(
            "payload_detector",
            [&] { return on_device(payload, llr); },
            [&](payload_detector& gpu) { return gpu.detect(payload, llr, erased); },
            [&] { return d_cpu->detect(payload, llr, erased); });
    }
    std::uint64_t search_budget_hits() const override
    {
        return d_cpu->search_budget_hits() + (d_gpu ? d_gpu->search_budget_hits() : 0);
    }

private:
    // Whether a run's carriers, LLRs or estimate lie in device memory, which the CPU
    // engine cannot reach.
    bool on_device(const payload_run& run, const float* llr) const
    {
        return any_device_memory(run.carriers, std::size_t(d_nr)) || is_device_memory(llr) ||
               is_device_memory(run.h);
    }

    std::unique_ptr<payload_detector> d_cpu;
    const int d_nr;
};

} // namespace

std::unique_ptr<payload_detector> make_host_payload_detector(const numerology& num,
                                                             int nt,
                                                             int nr,
                                                             std::unique_ptr<detector_engine> detector,
                                                             modulation payload)
{
    return std::make_unique<host_payload_detector>(num, nt, nr, std::move(detector), payload);
}

std::unique_ptr<payload_detector> make_payload_detector(const payload_detector_config& config,
                                                        const std::string& backend,
                                                        std::string* reason)
{
    detector_config detected = config.detector; // pi/2-BPSK: BPSK once turned back
    detected.mod = detected_modulation(config.detector.mod);
    auto cpu = make_host_payload_detector(config.num, config.detector.nt, config.detector.nr,
                                          make_detector_engine(detected, "cpu"),
                                          config.detector.mod);
    return std::make_unique<payload_detector_with_fallback>(
        std::move(cpu),
        choose_gpu_engine(
            backend,
            [&](std::string* why) { return detail::make_gpu_payload_detector(config, why); },
            reason),
        config.detector.nr);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
