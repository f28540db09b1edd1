/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver block: whole frames from the synchroniser to the core's fused
 * receiver (GPU or CPU), LLRs out, frame tags moved along.
 */
#include "block_support/flowgraph_stop.h"
#include "block_support/block_faults.h"
#include "block_support/engine_logging.h"
#include "block_support/receiver_block_config.h"
#include "block_support/stream_buffer_pins.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver_engine.h>
#include <gnuradio/gpumimo/fused_receiver.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class fused_receiver_impl : public pinned_while_on_gpu<fused_receiver>
{
public:
    fused_receiver_impl(const core::fused_receiver_config& config,
                        const std::string& backend,
                        int device,
                        bool int8_output,
                        float int8_scale,
                        std::size_t info_bits)
        : gr::block("fused_receiver",
                    gr::io_signature::make(config.rx, config.rx, sizeof(gr_complex)),
                    gr::io_signature::make(
                        1, 1, int8_output || info_bits ? sizeof(std::int8_t) : sizeof(float))),
          d_samples(config.frame.samples()),
          d_payload_bits(config.frame.payload_bits()),
          d_coded(info_bits > 0),
          d_bits(d_coded ? info_bits : d_payload_bits),
          d_rx(config.rx),
          d_int8(int8_output),
          d_int8_scale(int8_scale),
          d_config(config),
          d_backend_request(backend),
          d_device(device),
          d_frame_key(pmt::intern("frame_start"))
    {
        d_engine = make_engine(config);
        set_output_multiple(int(d_bits));
        set_relative_rate(std::uint64_t(d_bits), std::uint64_t(d_samples));
        set_tag_propagation_policy(TPP_DONT);
    }

    int payload_bits() const override { return int(d_payload_bits); }
    int info_bits() const override { return int(d_bits); }
    std::uint64_t codewords() const override { return d_codewords; }
    std::uint64_t codeword_errors() const override { return d_codeword_errors; }
    double mean_iterations() const override
    {
        return d_codewords ? double(d_iterations) / double(d_codewords) : 0.0;
    }
    double raw_ber() const override
    {
        return d_raw_bits ? double(d_raw_errors) / double(d_raw_bits) : 0.0;
    }
    std::string backend() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_engine->backend();
    }
    core::detector_spec detector() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return core::detector_spec(d_config.algo, d_config.params);
    }
    void set_detector(const core::detector_spec& spec) override
    {
        // Built in the caller's thread (general_work() allocates nothing), then swapped.
        core::fused_receiver_config next = d_config;
        next.algo = spec.algo();
        next.params = spec.params();
        auto engine = make_engine(next); // the factory validates before it builds
        std::lock_guard<std::mutex> lock(d_mutex);
        d_config = next;
        d_engine = std::move(engine);
    }
    std::uint64_t frames() const override { return d_frames; }
    std::uint64_t damaged_frames() const override { return d_damaged; }
    std::uint64_t unusable_estimates() const override { return d_unusable; }
    std::uint64_t work_failures() const override { return d_faults.count(); }
    double last_noise_var() const override { return d_last_noise; }

    // On the GPU the engine copies the samples in and the LLRs out by DMA straight from
    // and to page-locked stream buffers, with no pass over them in this thread.

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        const std::size_t frames = std::max<std::size_t>(1, std::size_t(noutput_items) / d_bits);
        for (auto& n : ninput_items_required)
            n = int(frames * d_samples);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const core::cancel_scope stopping(&flowgraph_stopping); // a long CPU search ends on stop()
        const std::size_t available =
            std::size_t(*std::min_element(ninput_items.begin(), ninput_items.end()));
        const std::size_t frames =
            std::min(available / d_samples, std::size_t(noutput_items) / d_bits);
        if (frames == 0)
            return 0;
        std::vector<const gr_complex*> in(d_rx);
        for (int a = 0; a < d_rx; a++)
            in[a] = static_cast<const gr_complex*>(input_items[a]);
        d_noise.resize(frames);
        std::lock_guard<std::mutex> lock(d_mutex); // set_detector() swaps the engines
        if (d_coded) {
            decode(in.data(), frames, static_cast<std::uint8_t*>(output_items[0]));
            move_frame_tags(frames);
            consume_each(int(frames * d_samples));
            return int(frames * d_bits);
        }
        float* llr = d_int8 ? scratch(frames * d_bits) : static_cast<float*>(output_items[0]);
        core::fused_receiver_report rep;
        try {
            rep = run(in.data(), frames, llr);
        } catch (...) { // the CPU path too: its frames leave as erasures, counted
            std::fill(llr, llr + frames * d_bits, 0.0f);
            rep = failed_call(frames, "zero LLRs");
        }
        if (d_int8)
            core::llr_to_int8(llr, frames * d_bits, d_int8_scale,
                              static_cast<std::int8_t*>(output_items[0]));
        account(rep, frames);
        move_frame_tags(frames);
        consume_each(int(frames * d_samples));
        return int(frames * d_bits);
    }

private:
    // Samples in, information bits out (a code); a failure's frames leave as zeros.
    void decode(const gr_complex* const* in, std::size_t frames, std::uint8_t* info)
    {
        core::fused_receiver_report rep;
        core::fused_decode_report dec;
        try {
            rep = d_engine->process_decoded(in, frames, info, &dec, d_noise.data());
        } catch (...) {
            std::fill(info, info + frames * d_bits, std::uint8_t(0));
            rep = failed_call(frames, "zero bits");
            dec = core::fused_decode_report();
        }
        d_codewords += dec.codewords;
        d_codeword_errors += dec.codewords - dec.satisfied;
        d_iterations += dec.iterations;
        d_raw_bits += dec.raw_bits;
        d_raw_errors += dec.raw_errors;
        account(rep, frames);
    }

    // A call whose engine threw (its outputs already zeroed by the caller): logged, no
    // noise estimate, every frame counted as an unusable estimate.
    core::fused_receiver_report failed_call(std::size_t frames, const char* left_as)
    {
        d_faults.caught("its " + std::to_string(frames) + " frames leave as " + left_as);
        std::fill(d_noise.begin(), d_noise.end(), 0.0f);
        core::fused_receiver_report rep;
        rep.unusable_estimates = frames;
        return rep;
    }

    float* scratch(std::size_t n)
    {
        d_llr.resize(n);
        return d_llr.data();
    }

    // A GPU failure is redone on the CPU by the engine, which stays there (core/engine.h).
    core::fused_receiver_report
    run(const gr_complex* const* in, std::size_t frames, float* llr)
    {
        return d_engine->process(in, frames, llr, d_noise.data());
    }

    std::unique_ptr<core::fused_receiver_engine>
    make_engine(const core::fused_receiver_config& config)
    {
        return make_logged_engine(d_logger, [&](std::string* why) {
            return core::make_fused_receiver_engine(config, d_backend_request, d_device, why);
        });
    }

    void account(const core::fused_receiver_report& rep, std::size_t frames)
    {
        d_frames += frames;
        d_last_noise = d_noise[frames - 1];
        if (rep.damaged_frames) {
            d_damaged += rep.damaged_frames;
            d_log.warn("damaged frame", [&] {
                return std::to_string(rep.damaged_frames) +
                       " frames held non-finite or out-of-range samples and left as zero "
                       "LLRs (" + std::to_string(d_damaged) + " so far)";
            });
        }
        if (rep.unusable_estimates) {
            d_unusable += rep.unusable_estimates;
            d_log.warn("unusable estimate", [&] {
                return "unusable channel estimates (not finite, rank deficient, or the "
                       "payload out of their range): their LLRs are zero (" +
                       std::to_string(d_unusable) + " so far)";
            });
        }
    }

    void move_frame_tags(std::size_t frames)
    {
        const std::uint64_t first = nitems_read(0);
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, first, first + frames * d_samples, d_frame_key);
        for (const tag_t& t : tags) {
            const std::uint64_t frame = (t.offset - first) / d_samples;
            add_item_tag(0, nitems_written(0) + frame * d_bits, t.key, t.value, alias_pmt());
        }
    }

    const std::size_t d_samples, d_payload_bits;
    const bool d_coded;        // a code: the output is information bits
    const std::size_t d_bits;  // output items per frame
    const int d_rx;
    const bool d_int8;
    const float d_int8_scale;
    core::fused_receiver_config d_config;
    const std::string d_backend_request;
    const int d_device;
    mutable std::mutex d_mutex; // the engines and d_config: set_detector() against work
    std::unique_ptr<core::fused_receiver_engine> d_engine;
    const pmt::pmt_t d_frame_key;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
    std::vector<float> d_llr, d_noise;
    std::uint64_t d_frames = 0, d_damaged = 0, d_unusable = 0;
    std::uint64_t d_codewords = 0, d_codeword_errors = 0, d_iterations = 0, d_raw_bits = 0,
                  d_raw_errors = 0;
    double d_last_noise = 0;
};

fused_receiver::sptr fused_receiver::make(const std::string& preset,
                                          int streams,
                                          const std::string& modulation,
                                          int payload_symbols,
                                          int antennas,
                                          const core::detector_spec& detector,
                                          const std::string& backend,
                                          bool int8_output,
                                          float int8_scale,
                                          int device,
                                          const std::string& estimator,
                                          const std::string& code,
                                          int pilot_interval)
{
    core::fused_receiver_config c =
        receiver_block_config("fused_receiver", preset, streams, modulation, payload_symbols,
                              antennas, detector, estimator, int8_scale, pilot_interval);
    std::size_t info_bits = 0;
    if (!code.empty()) {
        if (int8_output)
            throw std::invalid_argument(
                "fused_receiver: with a code the output is decoded bits, not int8 LLRs");
        c.code = code;
        info_bits = core::coded_payload(c.frame, code).info_bits(); // refuses a bad code
    }
    return gnuradio::make_block_sptr<fused_receiver_impl>(c, backend, device, int8_output,
                                                          int8_scale, info_bits);
}

} // namespace gpumimo
} // namespace gr
