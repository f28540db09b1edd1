/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel simulator block: the core's streaming channel, plus the guard that keeps
 * non-finite input out of it.
 */
#include "block_support/block_faults.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>
#include <gnuradio/gpumimo/mimo_channel.h>
#include <gnuradio/io_signature.h>

#include <cmath>
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_channel_impl : public mimo_channel
{
public:
    mimo_channel_impl(const core::channel_params& p, double signal_power)
        : gr::sync_block("mimo_channel",
                         gr::io_signature::make(p.tx, p.tx, sizeof(gr_complex)),
                         gr::io_signature::make(p.rx, p.rx, sizeof(gr_complex))),
          d_signal_power(signal_power),
          d_channel(std::make_unique<core::mimo_channel>(p)),
          d_noise_var(d_channel->stream_noise_var(signal_power))
    {
    }

    std::vector<gr_complex> taps() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_channel->taps();
    }
    double noise_var() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_noise_var;
    }

    void set_snr_db(double snr_db) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_channel->set_snr_db(snr_db);
        d_noise_var = d_channel->stream_noise_var(d_signal_power);
    }
    void set_cfo(double cfo) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_channel->set_cfo(cfo);
    }
    void set_delay(int delay) override
    {
        core::channel_params p = params();
        p.delay = delay;
        replace_channel(p);
    }
    void set_seed(std::uint64_t seed) override
    {
        core::channel_params p = params();
        p.seed = seed;
        replace_channel(p);
    }
    void set_phase_noise_var(double v) override
    {
        change_impairments([&](core::radio_impairments& m) { m.phase_noise_var = v; });
    }
    void set_iq_imbalance(double gain_db, double phase_deg) override
    {
        change_impairments([&](core::radio_impairments& m) {
            m.iq_gain_db = gain_db;
            m.iq_phase_deg = phase_deg;
        });
    }
    void set_dc_dbc(double dc_dbc) override
    {
        change_impairments([&](core::radio_impairments& m) { m.dc_dbc = dc_dbc; });
    }
    double phase_noise_var() const override { return params().impairments.phase_noise_var; }
    double iq_gain_db() const override { return params().impairments.iq_gain_db; }
    double iq_phase_deg() const override { return params().impairments.iq_phase_deg; }
    double dc_dbc() const override { return params().impairments.dc_dbc; }
    double snr_db() const override { return params().snr_db; }
    double cfo() const override { return params().cfo; }
    double doppler() const override { return params().doppler; }
    int delay() const override { return params().delay; }
    std::uint64_t seed() const override { return params().seed; }
    std::uint64_t bad_samples() const override { return d_bad; }
    std::uint64_t work_failures() const override { return d_faults.count(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        const std::size_t n = noutput_items;
        std::vector<const gr_complex*> in(input_items.size());
        for (std::size_t k = 0; k < in.size(); k++) {
            in[k] = static_cast<const gr_complex*>(input_items[k]);
            in[k] = finite_copy(k, in[k], n);
        }
        std::vector<gr_complex*> out(output_items.size());
        for (std::size_t r = 0; r < out.size(); r++)
            out[r] = static_cast<gr_complex*>(output_items[r]);
        std::lock_guard<std::mutex> lock(d_mutex); // the setters
        try {
            d_channel->process(in.data(), out.data(), n, d_noise_var);
        } catch (...) { // zeros out, counted; the stream goes on
            d_faults.caught("its " + std::to_string(n) + " output samples are zeros");
            for (gr_complex* o : out)
                std::fill(o, o + n, gr_complex(0));
        }
        return noutput_items;
    }

private:
    core::channel_params params() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_channel->params();
    }
    // The impairments with one change, validated before anything moves (the core
    // validates and then sets; it allocates nothing for them).
    template <typename Change>
    void change_impairments(Change&& change)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        core::radio_impairments m = d_channel->params().impairments;
        change(m);
        d_channel->set_impairments(m);
    }
    // Made in the caller's thread (work() allocates nothing), then swapped in.
    void replace_channel(const core::channel_params& p)
    {
        auto next = std::make_unique<core::mimo_channel>(p); // validates
        std::lock_guard<std::mutex> lock(d_mutex);
        d_channel = std::move(next);
        d_noise_var = d_channel->stream_noise_var(d_signal_power);
    }

    // The input itself when it is finite, else a copy with its non-finite samples 0.
    const gr_complex* finite_copy(std::size_t k, const gr_complex* x, std::size_t n)
    {
        std::size_t bad = 0;
        for (std::size_t t = 0; t < n; t++)
            bad += !core::is_usable(x[t]);
        if (bad == 0)
            return x;
        if (d_clean.size() <= k)
            d_clean.resize(k + 1);
        d_clean[k].assign(x, x + n);
        for (auto& v : d_clean[k])
            if (!core::is_usable(v))
                v = 0;
        d_bad += bad;
        d_log.warn("bad samples", [&] {
            return std::to_string(bad) + " non-finite or out-of-range samples on input " +
                   std::to_string(k) + " taken as 0 (" + std::to_string(d_bad) + " so far)";
        });
        return d_clean[k].data();
    }

    const double d_signal_power;
    mutable std::mutex d_mutex; // the channel and its noise: the setters against work()
    std::unique_ptr<core::mimo_channel> d_channel;
    double d_noise_var;
    std::vector<std::vector<gr_complex>> d_clean;
    std::uint64_t d_bad = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

mimo_channel::sptr mimo_channel::make(int tx,
                                      int rx,
                                      const std::vector<double>& tap_powers,
                                      double snr_db,
                                      double signal_power,
                                      double cfo,
                                      int delay,
                                      std::uint64_t seed,
                                      double doppler,
                                      const std::string& model,
                                      double delay_spread,
                                      double sample_rate,
                                      const std::string& correlation,
                                      double phase_noise_var,
                                      double iq_gain_db,
                                      double iq_phase_deg,
                                      double dc_dbc)
{
    core::channel_params p;
    p.tx = tx;
    p.rx = rx;
    p.tap_powers = tap_powers;
    p.snr_db = snr_db;
    p.cfo = cfo;
    p.delay = delay;
    p.seed = seed;
    p.doppler = doppler;
    p.model = model;
    p.delay_spread = delay_spread;
    p.sample_rate = sample_rate;
    const core::correlation_level c = core::parse_correlation_level(correlation);
    p.rx_correlation = c.alpha; // the taps model refuses any but none (core::validate)
    p.tx_correlation = c.beta;
    p.impairments.phase_noise_var = phase_noise_var;
    p.impairments.iq_gain_db = iq_gain_db;
    p.impairments.iq_phase_deg = iq_phase_deg;
    p.impairments.dc_dbc = dc_dbc;
    core::validate(p);
    if (!(signal_power > 0) || !std::isfinite(signal_power))
        throw std::invalid_argument("mimo_channel: signal_power must be finite and > 0");
    return gnuradio::make_block_sptr<mimo_channel_impl>(p, signal_power);
}

} // namespace gpumimo
} // namespace gr
