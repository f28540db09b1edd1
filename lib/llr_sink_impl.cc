/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The LLR sink: file and sidecar, framing on the "frame_start" tags, decoding a coded
 * payload (core::payload_decoder), scoring through core::prbs_error_counter or
 * core::reference_error_counter, statistics through core::llr_statistics.
 */
#include "block_support/block_faults.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/frame/payload_decoder.h>
#include <gnuradio/gpumimo/core/frame/error_counter.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/file_bytes.h>
#include <gnuradio/gpumimo/llr_sink.h>
#include <gnuradio/io_signature.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {

namespace {

// The payload mimo_ofdm_tx sent from a file of bytes: the file whole.
std::vector<std::uint8_t> read_reference(const std::string& path)
{
    // The payload a transmitter played; 1 GiB is eight billion bits.
    constexpr std::uint64_t max_reference_bytes = 1ull << 30;
    std::vector<char> text;
    try {
        text = core::read_regular_file(path, max_reference_bytes);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("llr_sink: reference_file ") + e.what());
    }
    const std::vector<std::uint8_t> bytes(text.begin(), text.end());
    if (bytes.empty())
        throw std::invalid_argument("llr_sink: the reference file " + core::quoted_text(path) +
                                    " is empty");
    return bytes;
}

} // namespace

class llr_sink_impl : public llr_sink
{
    using clock = std::chrono::steady_clock;

public:
    llr_sink_impl(const core::frame_format& format,
                  const std::string& preset,
                  bool int8_input,
                  float int8_scale,
                  const std::string& filename,
                  std::uint32_t prbs_seed,
                  int report_every,
                  const std::string& reference_file,
                  std::vector<std::uint8_t> reference,
                  std::unique_ptr<core::coded_payload> coded,
                  std::size_t decoded_bits)
        : gr::sync_block("llr_sink",
                         gr::io_signature::make(
                             1, 1, int8_input || decoded_bits ? 1 : sizeof(float)),
                         gr::io_signature::make(0, 0, 0)),
          d_format(format),
          d_preset(preset),
          d_int8(int8_input),
          d_decoded_input(decoded_bits > 0),
          d_scale(int8_scale),
          d_filename(filename),
          d_seed(reference_file.empty() ? prbs_seed : 0),
          d_reference_file(reference_file),
          d_reference_bytes(reference.size()),
          d_report_every(std::uint64_t(report_every)),
          d_frame_bits(decoded_bits ? decoded_bits : format.payload_bits()),
          d_coded(std::move(coded)),
          d_info_bits(d_coded ? d_coded->info_bits() : d_frame_bits),
          d_frame_key(pmt::intern("frame_start")),
          d_port(pmt::mp("stats")),
          d_rates_port(pmt::mp("error_rates"))
    {
        // A coded payload is scored on the decoded information bits.
        if (!reference_file.empty())
            d_counter = std::make_unique<core::reference_error_counter>(std::move(reference),
                                                                        d_info_bits);
        else if (prbs_seed != 0)
            d_counter = std::make_unique<core::prbs_error_counter>(23, prbs_seed, d_info_bits);
        if (d_coded)
            d_decoder = std::make_unique<core::payload_decoder>(*d_coded);
        d_frame.resize(d_frame_bits);
        d_hard.resize(d_info_bits);
        if (!filename.empty()) {
            d_file.open(filename, std::ios::binary | std::ios::trunc);
            if (!d_file)
                throw std::runtime_error("llr_sink: cannot open " +
                                         core::quoted_text(filename) + " to write");
            write_sidecar();
        }
        message_port_register_out(d_port);
        message_port_register_out(d_rates_port);
        // Any message on "reset" starts the counts over (reset_counters()).
        message_port_register_in(pmt::mp("reset"));
        set_msg_handler(pmt::mp("reset"), [this](const pmt::pmt_t&) { reset_counters(); });
    }

    std::size_t frame_bits() const override { return d_frame_bits; }
    std::size_t info_bits() const override { return d_info_bits; }
    std::uint64_t codewords() const override { return since_reset().codewords; }
    std::uint64_t codeword_errors() const override { return since_reset().codeword_errors; }
    double mean_iterations() const override
    {
        const counts c = since_reset();
        return ratio(c.iterations, c.codewords);
    }
    std::uint64_t raw_bits() const override { return since_reset().raw_bits; }
    std::uint64_t raw_bit_errors() const override { return since_reset().raw_errors; }
    double raw_ber() const override
    {
        const counts c = since_reset();
        return ratio(c.raw_errors, c.raw_bits);
    }
    std::string decoder_backend() const override
    {
        return d_decoder ? d_decoder->backend() : "";
    }
    std::uint64_t frames() const override { return since_reset().frames; }
    std::uint64_t partial_frames() const override { return since_reset().partial; }
    std::uint64_t bits() const override { return since_reset().bits; }
    std::uint64_t bit_errors() const override { return since_reset().bit_errors; }
    std::uint64_t frame_errors() const override { return since_reset().frame_errors; }
    double ber() const override
    {
        const counts c = since_reset();
        return ratio(c.bit_errors, c.bits);
    }
    double fer() const override
    {
        const counts c = since_reset();
        return ratio(c.frame_errors, c.frames);
    }
    std::uint64_t resynchronisations() const override { return since_reset().resyncs; }
    std::uint64_t unsynchronised_frames() const override { return since_reset().unsynced; }
    std::uint64_t llrs() const override { return since_reset().stats.count; }
    double mean_abs_llr() const override { return since_reset().stats.mean_abs(); }
    std::uint64_t zero_llrs() const override { return since_reset().stats.zeros; }
    std::uint64_t non_finite_llrs() const override { return since_reset().stats.non_finite; }
    double llr_rate() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return llr_rate_locked();
    }
    void reset_counters() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_base = absolute();
        d_window = counts{}; // the next window starts at the reset
        d_first = d_last = clock::now();
    }

    pmt::pmt_t stats() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return stats_locked();
    }

    bool stop() override
    {
        if (d_file.is_open()) {
            d_file.flush();
            write_sidecar();
        }
        message_port_pub(d_port, stats());
        std::ostringstream s;
        s << d_frames << " frames (" << d_partial << " partial), " << d_stats.count
          << " LLRs, mean |LLR| " << mean_abs_llr() << ", " << d_stats.zeros << " zero, "
          << d_stats.non_finite << " non-finite, " << llr_rate() / 1e6 << " MLLR/s";
        if (d_coded)
            s << "; " << d_coded->code_name() << " (" << d_decoder->backend() << "): "
              << codeword_errors() << " of " << codewords()
              << " codewords not decoded, mean iterations " << mean_iterations()
              << ", raw BER " << raw_ber();
        if (d_counter) {
            s << "; " << (d_coded ? "decoded " : "") << "BER " << ber() << " (" << bit_errors()
              << " of " << bits() << "), FER " << fer() << " (" << frame_errors() << " of "
              << frames() << ")";
            if (unsynchronised_frames())
                s << "; " << unsynchronised_frames()
                  << " frames could not be compared with the payload (no candidate better "
                     "than a guess: left out of the BER, counted as frame errors)";
        }
        d_logger->info("{}", s.str());
        return true;
    }

    std::uint64_t work_failures() const override { return d_faults.count(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        std::lock_guard<std::mutex> lock(d_mutex); // the getters and reset_counters()
        try {
            return take_llrs(noutput_items, input_items, output_items);
        } catch (...) { // the frame being assembled is lost, counted as partial
            d_faults.caught("the frame being assembled is dropped");
            if (d_fill > 0)
                d_partial++;
            d_fill = 0;
            return noutput_items;
        }
    }

private:
    int take_llrs(int noutput_items, gr_vector_const_void_star& input_items, gr_vector_void_star&)
    {
        const std::size_t n = noutput_items;
        if (d_stats.count == d_base.stats.count)
            d_first = clock::now();
        // The LLRs as floats: the input itself, or int8 converted, or decoded bits as
        // LLRs of +-1 (1: +1).
        d_llr = static_cast<const float*>(input_items[0]);
        if (d_decoded_input) {
            const std::uint8_t* b = static_cast<const std::uint8_t*>(input_items[0]);
            d_converted.resize(n);
            for (std::size_t i = 0; i < n; i++)
                d_converted[i] = b[i] ? 1.0f : -1.0f;
            d_llr = d_converted.data();
        } else if (d_int8) {
            const std::int8_t* q = static_cast<const std::int8_t*>(input_items[0]);
            d_converted.resize(n);
            for (std::size_t i = 0; i < n; i++)
                d_converted[i] = float(q[i]) / d_scale;
            d_llr = d_converted.data();
        }
        d_stats.add(d_llr, n);
        if (d_file.is_open())
            d_file.write(static_cast<const char*>(input_items[0]),
                         std::streamsize(n * (d_int8 ? 1 : sizeof(float))));

        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + n, d_frame_key);
        std::sort(tags.begin(), tags.end(), tag_t::offset_compare);
        std::size_t at = 0;
        for (const tag_t& t : tags) {
            const std::size_t to = std::size_t(t.offset - nitems_read(0));
            take(at, to);
            if (d_fill > 0) { // a frame starts before the last one ended
                d_partial++;
                d_fill = 0;
            }
            at = to;
        }
        take(at, n);
        d_last = clock::now();
        return noutput_items;
    }

    // LLRs [from, to) of this call into the frame being assembled, scoring it when whole.
    void take(std::size_t from, std::size_t to)
    {
        while (from < to) {
            const std::size_t k = std::min(to - from, d_frame_bits - d_fill);
            std::copy(d_llr + from, d_llr + from + k, d_frame.begin() + d_fill);
            d_fill += k;
            from += k;
            if (d_fill == d_frame_bits) {
                score_frame();
                d_fill = 0;
            }
        }
    }

    void score_frame()
    {
        d_frames++;
        if (d_coded) { // the information bits the decoder finds
            const core::payload_decode_report r = d_decoder->decode(d_frame.data(), d_hard.data());
            d_codewords += r.codewords;
            d_codeword_errors += r.codewords - r.satisfied;
            d_iterations += r.iterations;
            d_raw_bits += r.raw_bits;
            d_raw_errors += r.raw_errors;
        } else {
            for (std::size_t i = 0; i < d_frame_bits; i++)
                d_hard[i] = d_frame[i] > 0.0f; // NaN compares false: an erasure, bit 0
        }
        if (d_counter)
            d_counter->add_frame(d_hard.data());
        if (d_report_every && d_frames % d_report_every == 0) { // work() holds d_mutex
            message_port_pub(d_port, stats_locked());
            publish_error_rates();
        }
    }

    // The "error_rates" PDU: the frames since the last one (or the last reset). Called
    // from work(), which holds d_mutex.
    void publish_error_rates()
    {
        const counts now = since_reset_locked();
        const counts was = d_window; // zero after a reset: the window starts at it
        d_window = now;
        const double before_decoding =
            d_coded ? ratio(now.raw_errors - was.raw_errors, now.raw_bits - was.raw_bits)
                    : ratio(now.bit_errors - was.bit_errors, now.bits - was.bits);
        const double fer = ratio(now.frame_errors - was.frame_errors, now.frames - was.frames);
        pmt::pmt_t meta = pmt::make_dict();
        meta = pmt::dict_add(meta, pmt::intern("frames"), pmt::from_uint64(now.frames));
        meta = pmt::dict_add(meta, pmt::intern("window_frames"),
                             pmt::from_uint64(now.frames - was.frames));
        const std::vector<float> values{ float(before_decoding), float(fer) };
        message_port_pub(d_rates_port, pmt::cons(meta, pmt::init_f32vector(values.size(), values)));
    }

    void write_sidecar()
    {
        std::ofstream j(d_filename + ".json", std::ios::trunc);
        if (!j)
            throw std::runtime_error("llr_sink: cannot write '" + d_filename + ".json'");
        const int m = core::constellation(d_format.mod).bits_per_symbol();
        j << "{\n"
          << "  \"format\": \"gr-gpumimo LLR file\",\n"
          << "  \"dtype\": \"" << (d_int8 ? "int8" : "float32") << "\",\n"
          << "  \"int8_scale\": " << (d_int8 ? d_scale : 0.0f) << ",\n"
          << "  \"scale_note\": \"int8: llr = q / int8_scale; float32: the LLR itself\",\n"
          << "  \"sign\": \"LLR = ln P(b=1)/P(b=0): positive means bit 1\",\n"
          << "  \"layout\": \"frames back to back; in a frame, LLR ((s * data_carriers + d) "
             "* streams + k) * bits_per_symbol + b is bit b of stream k on data carrier d "
             "(the used carriers less the tracking carriers, docs/frame.md) of payload "
             "symbol s\",\n"
          << "  \"frame\": {\"preset\": \"" << d_preset << "\", \"fft_len\": "
          << d_format.num.fft_len << ", \"used_carriers\": " << d_format.num.used_carriers
          << ", \"data_carriers\": " << d_format.data_carrier_count()
          << ", \"frame_version\": " << core::frame_format_version
          << ", \"streams\": " << d_format.streams << ", \"modulation\": \""
          << core::to_string(d_format.mod) << "\", \"bits_per_symbol\": " << m
          << ", \"payload_symbols\": " << d_format.payload_symbols
          << ", \"bits_per_frame\": " << d_frame_bits << "},\n";
        if (d_coded)
            j << "  \"code\": {\"name\": "
              << nlohmann::json(d_coded->code_name())
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << ", \"n\": " << d_coded->n() << ", \"k\": " << d_coded->k()
              << ", \"codewords_per_frame\": " << d_coded->codewords()
              << ", \"interleaver\": \"core::coded_payload, seed 1 (docs/frame.md)\"},\n";
        j
          << "  \"payload\": ";
        if (!d_reference_file.empty())
            // A path that is not valid UTF-8 gets U+FFFD where JSON cannot hold it.
            j << "{\"reference_file\": "
              << nlohmann::json(d_reference_file)
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << ", \"bytes\": " << d_reference_bytes
              << ", \"bit_order\": \"most significant bit of each byte first\"},\n";
        else if (d_seed)
            j << "{\"prbs_order\": 23, \"seed\": " << d_seed << "},\n";
        else
            j << "null,\n";
        j << "  \"llrs_written\": " << d_stats.count << ",\n"
          << "  \"frames\": " << d_frames << ",\n"
          << "  \"partial_frames\": " << d_partial << "\n"
          << "}\n";
    }

    // stats() with d_mutex held (work() reports through it while holding the lock): one
    // snapshot of the counts, so that the dict's numbers agree with each other.
    pmt::pmt_t stats_locked() const
    {
        const counts c = since_reset_locked();
        pmt::pmt_t d = pmt::make_dict();
        auto add_u = [&d](const char* k, std::uint64_t v) {
            d = pmt::dict_add(d, pmt::intern(k), pmt::from_uint64(v));
        };
        auto add_d = [&d](const char* k, double v) {
            d = pmt::dict_add(d, pmt::intern(k), pmt::from_double(v));
        };
        add_u("frames", c.frames);
        add_u("partial_frames", c.partial);
        add_u("bits", c.bits);
        add_u("bit_errors", c.bit_errors);
        add_u("frame_errors", c.frame_errors);
        add_d("ber", ratio(c.bit_errors, c.bits));
        add_d("fer", ratio(c.frame_errors, c.frames));
        add_u("resynchronisations", c.resyncs);
        add_u("unsynchronised_frames", c.unsynced);
        add_u("llrs", c.stats.count);
        add_d("mean_abs_llr", c.stats.mean_abs());
        add_u("zero_llrs", c.stats.zeros);
        add_u("non_finite_llrs", c.stats.non_finite);
        add_d("llr_rate", llr_rate_locked());
        if (d_coded) {
            add_u("codewords", c.codewords);
            add_u("codeword_errors", c.codeword_errors);
            add_d("mean_iterations", ratio(c.iterations, c.codewords));
            add_u("raw_bits", c.raw_bits);
            add_u("raw_bit_errors", c.raw_errors);
            add_d("raw_ber", ratio(c.raw_errors, c.raw_bits));
        }
        return d;
    }

    // errors / of, 0 when nothing was counted: every rate the sink gives.
    static double ratio(std::uint64_t errors, std::uint64_t of)
    {
        return of ? double(errors) / double(of) : 0.0;
    }
    double llr_rate_locked() const
    {
        const double s = std::chrono::duration<double>(d_last - d_first).count();
        return s > 0 ? double(d_stats.count - d_base.stats.count) / s : 0.0;
    }

    // Every count the getters give, as they stand; reset_counters() keeps a copy
    // (d_base) that the getters subtract, so that the payload's synchronisation and the
    // LLR file go on untouched.
    struct counts {
        std::uint64_t frames = 0, partial = 0, bits = 0, bit_errors = 0, frame_errors = 0,
                      resyncs = 0, unsynced = 0, codewords = 0, codeword_errors = 0,
                      iterations = 0, raw_bits = 0, raw_errors = 0;
        core::llr_statistics stats;
    };
    counts absolute() const
    {
        counts c;
        c.frames = d_frames;
        c.partial = d_partial;
        c.codewords = d_codewords;
        c.codeword_errors = d_codeword_errors;
        c.iterations = d_iterations;
        c.raw_bits = d_raw_bits;
        c.raw_errors = d_raw_errors;
        if (d_counter) {
            c.bits = d_counter->bits();
            c.bit_errors = d_counter->bit_errors();
            c.frame_errors = d_counter->frame_errors();
            c.resyncs = d_counter->resynchronisations();
            c.unsynced = d_counter->unsynchronised_frames();
        }
        c.stats = d_stats;
        return c;
    }
    counts since_reset() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return since_reset_locked();
    }
    counts since_reset_locked() const
    {
        counts c = absolute();
        c.frames -= d_base.frames;
        c.partial -= d_base.partial;
        c.bits -= d_base.bits;
        c.bit_errors -= d_base.bit_errors;
        c.frame_errors -= d_base.frame_errors;
        c.resyncs -= d_base.resyncs;
        c.unsynced -= d_base.unsynced;
        c.codewords -= d_base.codewords;
        c.codeword_errors -= d_base.codeword_errors;
        c.iterations -= d_base.iterations;
        c.raw_bits -= d_base.raw_bits;
        c.raw_errors -= d_base.raw_errors;
        c.stats.count -= d_base.stats.count;
        c.stats.zeros -= d_base.stats.zeros;
        c.stats.non_finite -= d_base.stats.non_finite;
        c.stats.sum_abs -= d_base.stats.sum_abs;
        return c;
    }

    const core::frame_format d_format;
    const std::string d_preset;
    const bool d_int8;
    const bool d_decoded_input; //!< bytes of decoded bits (fused_receiver with a code)
    const float d_scale;
    const std::string d_filename;
    const std::uint32_t d_seed; //!< 0: no PRBS payload
    const std::string d_reference_file;
    const std::size_t d_reference_bytes;
    const std::uint64_t d_report_every;
    const std::size_t d_frame_bits;                 //!< LLRs per frame
    std::unique_ptr<core::coded_payload> d_coded;   //!< null: uncoded
    std::unique_ptr<core::payload_decoder> d_decoder;
    const std::size_t d_info_bits;                  //!< bits scored per frame
    const pmt::pmt_t d_frame_key, d_port, d_rates_port;
    std::unique_ptr<core::payload_error_counter> d_counter; //!< null: payload unknown
    core::llr_statistics d_stats;
    std::ofstream d_file;
    const float* d_llr = nullptr; //!< this call's LLRs (take() reads them)
    std::vector<float> d_converted, d_frame;
    std::vector<std::uint8_t> d_hard;
    std::size_t d_fill = 0;
    std::uint64_t d_frames = 0, d_partial = 0;
    std::uint64_t d_codewords = 0, d_codeword_errors = 0, d_iterations = 0, d_raw_bits = 0,
                  d_raw_errors = 0;
    counts d_window; //!< since_reset() at the last error_rates PDU (d_mutex)
    clock::time_point d_first{}, d_last{};
    mutable std::mutex d_mutex; // work() against the getters and reset_counters()
    counts d_base;              // the counts at the last reset_counters()
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

llr_sink::sptr llr_sink::make(const std::string& preset,
                              int streams,
                              const std::string& modulation,
                              int payload_symbols,
                              bool int8_input,
                              float int8_scale,
                              const std::string& filename,
                              std::uint32_t prbs_seed,
                              int report_every,
                              const std::string& reference_file,
                              const std::string& code,
                              bool decoded_input)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols);
    if (!(int8_scale > 0) || !std::isfinite(int8_scale))
        throw std::invalid_argument("llr_sink: int8_scale must be finite and > 0");
    if (report_every < 0)
        throw std::invalid_argument("llr_sink: report_every must be >= 0");
    if (reference_file.empty() && prbs_seed != 0 && (prbs_seed & 0x7FFFFFu) == 0)
        throw std::invalid_argument("llr_sink: the PRBS seed's low 23 bits must not all "
                                    "be 0 (0 itself: payload unknown)");
    std::vector<std::uint8_t> reference;
    if (!reference_file.empty())
        reference = read_reference(reference_file);
    std::unique_ptr<core::coded_payload> coded;
    std::size_t decoded_bits = 0; // items per frame of decoded input
    if (decoded_input) {
        if (int8_input)
            throw std::invalid_argument("llr_sink: decoded_input takes bytes of bits, not int8 LLRs");
        if (!filename.empty())
            throw std::invalid_argument("llr_sink: decoded_input writes no LLR file (a File "
                                        "Sink keeps the bits)");
        decoded_bits = code.empty() ? f.payload_bits() : core::coded_payload(f, code).info_bits();
    } else if (!code.empty()) {
        coded = std::make_unique<core::coded_payload>(f, code);
    }
    return gnuradio::make_block_sptr<llr_sink_impl>(f, preset, int8_input, int8_scale,
                                                    filename, prbs_seed, report_every,
                                                    reference_file, std::move(reference),
                                                    std::move(coded), decoded_bits);
}

} // namespace gpumimo
} // namespace gr
