/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM frame source: core::frame_samples, frame after frame, PRBS payload.
 */
#include <gnuradio/gpumimo/core/frame.h>
#include <gnuradio/gpumimo/mimo_ofdm_tx.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_ofdm_tx_impl : public mimo_ofdm_tx
{
public:
    mimo_ofdm_tx_impl(const core::frame_format& format, std::uint32_t seed, int gap)
        : gr::sync_block("mimo_ofdm_tx",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(format.streams, format.streams,
                                                sizeof(gr_complex))),
          d_format(format),
          d_gap(std::size_t(gap)),
          d_prbs(23, seed),
          d_bits(format.payload_bits()),
          d_key(pmt::intern("frame_start"))
    {
        next_frame();
        d_pos = 0;
    }

    std::size_t frame_len() const override { return d_format.samples() + d_gap; }
    std::size_t frame_bits() const override { return d_bits.size(); }
    std::uint64_t frames() const override { return d_frames; }

    int work(int noutput_items,
             gr_vector_const_void_star&,
             gr_vector_void_star& output_items) override
    {
        const std::size_t n = noutput_items, len = frame_len();
        const std::size_t per_stream = d_format.samples();
        std::size_t done = 0;
        while (done < n) {
            if (d_pos == len) { // the next frame
                next_frame();
                d_pos = 0;
            }
            if (d_pos == 0)
                for (int k = 0; k < d_format.streams; k++)
                    add_item_tag(k, nitems_written(k) + done, d_key,
                                 pmt::from_uint64(d_frames - 1));
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
        return noutput_items;
    }

private:
    void next_frame()
    {
        d_prbs.fill(d_bits.data(), d_bits.size());
        d_samples = core::frame_samples(d_format, d_bits.data());
        d_frames++;
    }

    const core::frame_format d_format;
    const std::size_t d_gap;
    core::prbs d_prbs;
    std::vector<std::uint8_t> d_bits;
    std::vector<gr_complex> d_samples; // [stream][format.samples()]
    const pmt::pmt_t d_key;
    std::size_t d_pos = 0;
    std::uint64_t d_frames = 0;
};

mimo_ofdm_tx::sptr mimo_ofdm_tx::make(const std::string& preset,
                                      int streams,
                                      const std::string& modulation,
                                      int payload_symbols,
                                      std::uint32_t seed,
                                      int gap)
{
    const core::frame_format f =
        core::make_frame_format(preset, streams, modulation, payload_symbols);
    if (gap < 0)
        throw std::invalid_argument("mimo_ofdm_tx: gap must be >= 0");
    if ((seed & 0x7FFFFFu) == 0)
        throw std::invalid_argument("mimo_ofdm_tx: the seed's low 23 bits must not all be 0");
    return gnuradio::make_block_sptr<mimo_ofdm_tx_impl>(f, seed, gap);
}

} // namespace gpumimo
} // namespace gr
