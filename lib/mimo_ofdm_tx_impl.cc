/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM frame source: core::frame_samples, frame after frame, the payload from
 * a PRBS or from an input of packed bytes, optionally LDPC-encoded and interleaved
 * (core::coded_payload).
 */
#include "block_support/block_faults.h"

#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/mimo_ofdm_tx.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_ofdm_tx_impl : public mimo_ofdm_tx
{
public:
    mimo_ofdm_tx_impl(const core::frame_format& format,
                      std::uint32_t seed,
                      int gap,
                      bool bytes,
                      std::unique_ptr<core::coded_payload> coded)
        : gr::block("mimo_ofdm_tx",
                    bytes ? gr::io_signature::make(1, 1, sizeof(std::uint8_t))
                          : gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(format.streams, format.streams,
                                           sizeof(gr_complex))),
          d_format(format),
          d_gap(std::size_t(gap)),
          d_coded(std::move(coded)),
          d_bits(d_coded ? d_coded->info_bits() : format.payload_bits()),
          d_payload(d_coded ? format.payload_bits() : 0),
          d_key(pmt::intern("frame_start"))
    {
        if (!bytes)
            d_prbs.emplace(23, seed);
        d_pos = frame_len(); // no frame begun
        if (bytes) {
            // Input tags have no place in the frames: the frame_start tags are ours.
            set_tag_propagation_policy(TPP_DONT);
            set_relative_rate(std::uint64_t(frame_len()), std::uint64_t(frame_bytes()));
        }
    }

    std::size_t frame_len() const override { return d_format.samples() + d_gap; }
    std::size_t frame_bits() const override { return d_bits.size(); }
    std::size_t frame_bytes() const override { return d_bits.size() / 8; }
    std::uint64_t frames() const override { return d_frames; }

    void forecast(int, gr_vector_int& ninput_items_required) override
    {
        // A frame's bytes when the next frame is due; none while a frame is being sent.
        for (auto& n : ninput_items_required)
            n = d_pos == frame_len() ? int(frame_bytes()) : 0;
    }

    std::uint64_t work_failures() const override { return d_faults.count(); }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        try {
            return send(noutput_items, ninput_items, input_items, output_items);
        } catch (...) { // a transmitter that cannot build its frame ends its stream
            d_faults.caught("the transmission ends after frame " + std::to_string(d_frames));
            return WORK_DONE;
        }
    }

private:
    int send(int noutput_items,
             gr_vector_int& ninput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items)
    {
        const std::size_t n = noutput_items, len = frame_len();
        const std::size_t per_stream = d_format.samples();
        std::size_t done = 0, used = 0; // samples written, bytes taken
        while (done < n) {
            if (d_pos == len) { // the next frame
                if (d_prbs) {
                    d_prbs->fill(d_bits.data(), d_bits.size());
                } else {
                    if (std::size_t(ninput_items[0]) - used < frame_bytes())
                        break; // wait for the rest of its bytes
                    core::unpack_bytes(static_cast<const std::uint8_t*>(input_items[0]) + used,
                                       frame_bytes(), d_bits.data());
                    used += frame_bytes();
                }
                if (d_coded) // the information bits encoded into the payload
                    d_coded->encode(d_bits.data(), d_payload.data());
                d_samples = core::frame_samples(d_format, d_coded ? d_payload.data() : d_bits.data());
                d_pos = 0;
                for (int k = 0; k < d_format.streams; k++)
                    add_item_tag(k, nitems_written(k) + done, d_key, pmt::from_uint64(d_frames));
                d_frames++;
            }
            const std::size_t take = std::min(n - done, len - d_pos);
            for (int k = 0; k < d_format.streams; k++) {
                gr_complex* out = static_cast<gr_complex*>(output_items[k]) + done;
                for (std::size_t i = 0; i < take; i++) {
                    const std::size_t t = d_pos + i;
                    out[i] = t < per_stream ? d_samples[k * per_stream + t] : gr_complex(0, 0);
                }
            }
            done += take;
            d_pos += take;
        }
        if (used)
            consume(0, int(used));
        return int(done);
    }

    const core::frame_format d_format;
    const std::size_t d_gap;
    std::optional<core::prbs> d_prbs; //!< payload "prbs"; empty: payload "bytes"
    std::unique_ptr<core::coded_payload> d_coded; //!< null: uncoded
    std::vector<std::uint8_t> d_bits;    //!< the frame's information bits
    std::vector<std::uint8_t> d_payload; //!< coded: the frame's payload bits
    std::vector<gr_complex> d_samples; // [stream][format.samples()]
    const pmt::pmt_t d_key;
    std::size_t d_pos = 0; //!< samples of the current frame sent; frame_len(): none begun
    std::uint64_t d_frames = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

mimo_ofdm_tx::sptr mimo_ofdm_tx::make(const std::string& preset,
                                      int streams,
                                      const std::string& modulation,
                                      int payload_symbols,
                                      std::uint32_t seed,
                                      int gap,
                                      const std::string& payload,
                                      const std::string& code,
                                      int pilot_interval)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
    if (gap < 0)
        throw std::invalid_argument("mimo_ofdm_tx: gap must be >= 0");
    if (payload != "prbs" && payload != "bytes")
        throw std::invalid_argument("mimo_ofdm_tx: payload must be 'prbs' or 'bytes', not '" +
                                    payload + "'");
    const bool bytes = payload == "bytes";
    if (!bytes && (seed & 0x7FFFFFu) == 0)
        throw std::invalid_argument("mimo_ofdm_tx: the seed's low 23 bits must not all be 0");
    std::unique_ptr<core::coded_payload> coded;
    if (!code.empty())
        coded = std::make_unique<core::coded_payload>(f, code);
    const std::size_t bits = coded ? coded->info_bits() : f.payload_bits();
    if (bytes && bits % 8 != 0)
        throw std::invalid_argument("mimo_ofdm_tx: payload 'bytes' needs a whole number of "
                                    "bytes per frame (" + std::to_string(bits) + " bits)");
    return gnuradio::make_block_sptr<mimo_ofdm_tx_impl>(f, seed, gap, bytes, std::move(coded));
}

} // namespace gpumimo
} // namespace gr
