/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM detector block: the data carriers of a run of payload symbols sharing a
 * channel estimate regrouped into one core batch (carrier-major, one H per carrier),
 * detected by batch_detector, the LLRs put back in the frame's bit order. The tracking
 * carriers are skipped: mimo_chanest has already used them (core::phase_tracker).
 */
#include "block_faults.h"

#include <gnuradio/gpumimo/batch_detector.h>
#include <gnuradio/gpumimo/core/frame/carrier_major.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/mimo_detector.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_detector_impl : public mimo_detector
{
public:
    mimo_detector_impl(const core::frame_format& format,
                       int antennas,
                       const core::detector_spec& detector,
                       const std::string& backend,
                       int device,
                       bool int8_output,
                       float int8_scale)
        : gr::sync_interpolator(
              "mimo_detector",
              gr::io_signature::make(antennas, antennas,
                                     sizeof(gr_complex) * format.num.used_carriers),
              gr::io_signature::make(1, 1, int8_output ? sizeof(std::int8_t) : sizeof(float)),
              unsigned(format.payload_bits() / std::size_t(format.payload_symbols))),
          d_mod(core::to_string(format.mod)),
          d_backend_request(backend),
          d_device(device),
          d_spec(detector),
          d_detector(std::make_unique<batch_detector>(
              detector, d_mod, format.streams, antennas, backend, device)),
          d_nt(format.streams),
          d_nr(antennas),
          d_used(std::size_t(format.num.used_carriers)),
          d_data(core::data_carriers(format.num)),
          d_carriers(d_data.size()),
          d_bits(std::size_t(d_detector->bits_per_vector()) * d_carriers),
          d_int8(int8_output),
          d_int8_scale(int8_scale),
          d_frame_key(pmt::intern("frame_start")),
          d_est_key(pmt::intern("mimo_chan_est"))
    {
        set_tag_propagation_policy(TPP_DONT);
    }

    int bits_per_symbol() const override { return int(d_bits); }
    std::string backend() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_detector->backend();
    }
    core::detector_spec detector() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_spec;
    }
    void set_detector(const core::detector_spec& spec) override
    {
        // Built here, in the caller's thread (work() allocates nothing); the bits per
        // symbol depend only on the streams and the modulation, so the output rate stays.
        auto next = std::make_unique<batch_detector>(
            spec, d_mod, d_nt, d_nr, d_backend_request, d_device);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_detector = std::move(next);
        d_spec = spec;
    }
    std::uint64_t symbols() const override { return d_symbols; }
    std::uint64_t erased_symbols() const override { return d_erased; }

    std::uint64_t work_failures() const override { return d_faults.count(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        std::lock_guard<std::mutex> lock(d_mutex); // set_detector() swaps the engine
        try {
            return detect_symbols(noutput_items, input_items, output_items);
        } catch (...) { // the symbols at hand leave as erasures, counted
            const std::size_t n = std::size_t(noutput_items) / d_bits;
            d_faults.caught("its " + std::to_string(n) + " symbols leave as zero LLRs");
            if (d_int8)
                std::fill_n(static_cast<std::int8_t*>(output_items[0]), noutput_items, 0);
            else
                std::fill_n(static_cast<float*>(output_items[0]), noutput_items, 0.0f);
            d_erased += n;
            d_symbols += n;
            return noutput_items;
        }
    }

private:
    int detect_symbols(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
    {
        const std::size_t n = std::size_t(noutput_items) / d_bits;
        const std::uint64_t first = nitems_read(0);
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, first, first + n, d_est_key);
        std::sort(tags.begin(), tags.end(), tag_t::offset_compare);
        std::size_t at = 0;
        for (const tag_t& t : tags) { // runs of symbols sharing a channel estimate
            detect_run(input_items, output_items, at, std::size_t(t.offset - first) - at);
            at = std::size_t(t.offset - first);
            take_estimate(t.value);
        }
        detect_run(input_items, output_items, at, n - at);
        move_frame_tags(first, n);
        d_symbols += n;
        return noutput_items;
    }

    void take_estimate(const pmt::pmt_t& est)
    {
        d_have_channel = false;
        const pmt::pmt_t h = pmt::dict_ref(est, pmt::intern("h"), pmt::PMT_NIL);
        const pmt::pmt_t nv = pmt::dict_ref(est, pmt::intern("noise_var"), pmt::PMT_NIL);
        if (!pmt::is_c32vector(h) || !pmt::is_number(nv) ||
            pmt::length(h) != d_used * d_nr * d_nt) {
            d_log.warn("bad tag", [&] {
                return "ignored a mimo_chan_est tag of the wrong form (want h: " +
                       std::to_string(d_used * d_nr * d_nt) + " complex values, noise_var)";
            });
            return;
        }
        // The tag covers every used carrier; the detector takes the data carriers'.
        const std::size_t m = std::size_t(d_nr) * d_nt;
        const std::vector<gr_complex> all = pmt::c32vector_elements(h);
        d_h.resize(d_carriers * m);
        for (std::size_t d = 0; d < d_carriers; d++)
            std::copy_n(all.begin() + std::size_t(d_data[d]) * m, m, d_h.begin() + d * m);
        // The detectors' noise per carrier: the estimate's effective noise (N0 plus its
        // error, core::channel_estimate::noise_eff) where the tag has it, else N0.
        const pmt::pmt_t eff = pmt::dict_ref(est, pmt::intern("noise_eff"), pmt::PMT_NIL);
        if (pmt::is_f32vector(eff) && pmt::length(eff) == d_used) {
            const std::vector<float> noise = pmt::f32vector_elements(eff);
            d_noise.resize(d_carriers);
            for (std::size_t d = 0; d < d_carriers; d++)
                d_noise[d] = noise[std::size_t(d_data[d])];
        } else {
            d_noise.assign(d_carriers, float(pmt::to_double(nv)));
        }
        // The core's checks on one zero vector per carrier: H finite and of full rank,
        // N0 finite and positive.
        const std::vector<gr_complex> zeros(d_carriers * d_nr);
        core::mimo_batch b;
        b.y = zeros.data();
        b.h = d_h.data();
        b.noise_var = d_noise.data();
        b.scalar_noise = false;
        b.batch = d_carriers;
        b.nt = d_nt;
        b.nr = d_nr;
        try {
            core::validate_batch(b, d_nt, d_nr, 1.0); // y is zero here
            d_have_channel = true;
        } catch (const std::exception& e) {
            const std::string what = e.what();
            d_log.warn("unusable estimate", [&] {
                return "the frame's channel estimate is unusable, its symbols leave as "
                       "zero LLRs: " + what;
            });
        }
    }

    void detect_run(const gr_vector_const_void_star& in,
                    gr_vector_void_star& out,
                    std::size_t at,
                    std::size_t count)
    {
        if (count == 0)
            return;
        // Carrier-major (core/frame/carrier_major.h): group = count gives each carrier
        // its own H. Non-finite symbols go in as zeros.
        const core::carrier_major order{ d_carriers, count };
        d_y.resize(order.vectors() * d_nr);
        d_erase.assign(count, !d_have_channel);
        for (int r = 0; r < d_nr; r++) {
            const gr_complex* x = static_cast<const gr_complex*>(in[r]) + at * d_used;
            for (std::size_t s = 0; s < count; s++)
                for (std::size_t c = 0; c < d_carriers; c++) { // data carrier c
                    gr_complex v = x[s * d_used + std::size_t(d_data[c])];
                    if (!core::is_usable(v)) {
                        d_erase[s] = 1;
                        v = 0;
                    }
                    d_y[order.detector_vector(c, s) * d_nr + r] = v;
                }
        }
        d_llr_cm.assign(d_carriers * count * (d_bits / d_carriers), 0.0f);
        if (d_have_channel && !detect(count))
            std::fill(d_erase.begin(), d_erase.end(), 1);
        // Back to the frame's order, symbol-major, erasing what must be erased.
        const std::size_t per_vector = d_bits / d_carriers;
        d_llr.resize(count * d_bits);
        std::size_t erased = 0;
        for (std::size_t s = 0; s < count; s++) {
            erased += d_erase[s];
            for (std::size_t c = 0; c < d_carriers; c++)
                for (std::size_t b = 0; b < per_vector; b++) {
                    const float v = d_llr_cm[order.detector_vector(c, s) * per_vector + b];
                    d_llr[order.frame_vector(c, s) * per_vector + b] =
                        d_erase[s] || !std::isfinite(v) ? 0.0f : v;
                }
        }
        if (erased) {
            d_erased += erased;
            d_log.warn("erased symbols", [&] {
                return std::to_string(erased) + " payload symbols left as zero LLRs (" +
                       std::to_string(d_erased) + " in all): " +
                       (d_have_channel ? "non-finite, out-of-range or out-of-model carriers"
                                       : "no usable channel estimate");
            });
        }
        if (d_int8)
            core::llr_to_int8(d_llr.data(), d_llr.size(), d_int8_scale,
                              static_cast<std::int8_t*>(out[0]) + at * d_bits);
        else
            std::copy(d_llr.begin(), d_llr.end(), static_cast<float*>(out[0]) + at * d_bits);
    }

    // False when the run's carriers are refused as bad input (one of them out of its
    // model's range: core/limits.h); the run is then erased.
    bool detect(std::size_t count)
    {
        core::mimo_batch b;
        b.y = d_y.data();
        b.h = d_h.data();
        b.noise_var = d_noise.data(); // one per carrier: group = count
        b.scalar_noise = false;
        b.batch = d_carriers * count;
        b.nt = d_nt;
        b.nr = d_nr;
        b.group = count;
        // A GPU failure is redone on the CPU by the engine (core/engine.h); what still
        // fails reaches work(), which counts it and erases the symbols at hand.
        try {
            d_detector->detect(b, d_llr_cm.data());
            return true;
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            d_log.warn("refused run", [&] {
                return "a run of " + std::to_string(count) + " symbols was refused, its "
                       "LLRs are zero: " + what;
            });
            return false;
        }
    }

    void move_frame_tags(std::uint64_t first, std::size_t n)
    {
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, first, first + n, d_frame_key);
        for (const tag_t& t : tags)
            add_item_tag(0, nitems_written(0) + (t.offset - first) * d_bits, t.key, t.value,
                         alias_pmt());
    }

    const std::string d_mod, d_backend_request;
    const int d_device;
    mutable std::mutex d_mutex; // d_spec and d_detector: set_detector() against work()
    core::detector_spec d_spec;
    std::unique_ptr<batch_detector> d_detector;
    const int d_nt, d_nr;
    // Used carriers per input symbol, the data carriers among them (indices) and
    // their count, and LLRs per symbol.
    const std::size_t d_used;
    const std::vector<int> d_data;
    const std::size_t d_carriers, d_bits;
    const bool d_int8;
    const float d_int8_scale;
    const pmt::pmt_t d_frame_key, d_est_key;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
    std::vector<gr_complex> d_h, d_y;
    std::vector<float> d_noise; // per carrier
    bool d_have_channel = false;
    std::vector<char> d_erase;
    std::vector<float> d_llr_cm, d_llr;
    std::uint64_t d_symbols = 0, d_erased = 0;
};

mimo_detector::sptr mimo_detector::make(const std::string& preset,
                                        int streams,
                                        const std::string& modulation,
                                        int antennas,
                                        const core::detector_spec& detector,
                                        const std::string& backend,
                                        bool int8_output,
                                        float int8_scale,
                                        int device)
{
    const core::frame_format f = core::make_frame_format(preset, streams, modulation, 1);
    if (antennas < streams || antennas > core::max_nr)
        throw std::invalid_argument("mimo_detector: antennas must be from streams to 16");
    if (!(int8_scale > 0) || !std::isfinite(int8_scale))
        throw std::invalid_argument("mimo_detector: int8_scale must be finite and > 0");
    return gnuradio::make_block_sptr<mimo_detector_impl>(
        f, antennas, detector, backend, device, int8_output, int8_scale);
}

} // namespace gpumimo
} // namespace gr
