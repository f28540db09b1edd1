/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The SigMF multi-channel source: one file per channel, read in step, UHD-style tags.
 */
#include "block_support/block_faults.h"
#include "formats/sigmf_files.h"

#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/sigmf_source.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {

class sigmf_source_impl : public sigmf_source
{
public:
    sigmf_source_impl(std::vector<sigmf::channel> channels, bool repeat, bool verify_hashes)
        : gr::sync_block("sigmf_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(int(channels.size()), int(channels.size()),
                                                sizeof(gr_complex))),
          d_channels(std::move(channels)),
          d_repeat(repeat),
          d_ci16(d_channels[0].datatype == "ci16_le")
    {
        d_samples = d_channels[0].samples;
        for (const auto& ch : d_channels) {
            d_samples = std::min(d_samples, ch.samples);
            if (ch.trailing_bytes)
                d_logger->warn("{} ends {} bytes into a sample (truncated?): ignored",
                               ch.data_path, ch.trailing_bytes);
            d_files.emplace_back(ch.data_path, std::ios::binary);
            if (!d_files.back())
                throw std::runtime_error("SigMF: " + ch.data_path + " cannot be opened");
            d_hashes.push_back(verify_hashes && !ch.data_sha512.empty()
                                   ? std::make_unique<sigmf::sha512_stream>()
                                   : nullptr);
        }
        for (const auto& ch : d_channels)
            if (ch.samples != d_samples)
                d_logger->warn("{} holds {} samples, the shortest channel {}: playing {}",
                               ch.data_path, ch.samples, d_samples, d_samples);
        if (d_samples == 0)
            d_logger->warn("the recording holds no samples");
    }

    int channels() const override { return int(d_channels.size()); }
    double sample_rate() const override { return d_channels[0].sample_rate; }
    double center_freq() const override { return d_channels[0].captures[0].frequency; }
    std::string start_time() const override { return d_channels[0].captures[0].datetime; }
    std::uint64_t samples() const override { return d_samples; }
    std::uint64_t unusable_samples() const override { return d_unusable; }

    std::uint64_t work_failures() const override { return d_faults.count(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input,
             gr_vector_void_star& output_items) override
    {
        try {
            return play(noutput_items, input, output_items);
        } catch (...) { // a file that cannot be read ends the stream, said in the log
            d_faults.caught("the recording ends here, at sample " + std::to_string(d_pos));
            return WORK_DONE;
        }
    }

private:
    int play(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star& output_items)
    {
        if (d_pos == d_samples) {
            check_pass();
            if (!d_repeat || d_samples == 0)
                return WORK_DONE;
            d_pos = 0;
            d_pass_checked = false;
            for (auto& f : d_files) {
                f.clear();
                f.seekg(0);
            }
        }
        const std::size_t n = std::min<std::uint64_t>(noutput_items, d_samples - d_pos);
        for (std::size_t c = 0; c < d_channels.size(); c++) {
            gr_complex* out = static_cast<gr_complex*>(output_items[c]);
            if (!read(c, out, n))
                throw std::runtime_error("SigMF: reading " + d_channels[c].data_path +
                                         " failed at sample " + std::to_string(d_pos));
            tag_captures(c, n);
        }
        d_pos += n;
        return int(n);
    }

    // The data files' bytes as they are read go through SHA-512 (with verify_hashes, for
    // the channels whose metadata has core:sha512): make() checked each file before, but
    // a file rewritten since would play unchecked. At the end of each pass the rest of
    // the file joins the hash, and a file that no longer matches ends the stream there
    // (check_pass).
    bool read(std::size_t c, gr_complex* out, std::size_t n)
    {
        if (!d_ci16) {
            if (!d_files[c].read(reinterpret_cast<char*>(out), std::streamsize(n * sizeof(gr_complex))))
                return false;
            if (d_hashes[c])
                d_hashes[c]->update(out, n * sizeof(gr_complex));
            zero_unusable(out, n);
            return true;
        }
        d_raw.resize(2 * n);
        if (!d_files[c].read(reinterpret_cast<char*>(d_raw.data()),
                             std::streamsize(n * 2 * sizeof(std::int16_t))))
            return false;
        if (d_hashes[c])
            d_hashes[c]->update(d_raw.data(), n * 2 * sizeof(std::int16_t));
        // Division, not a multiplication by 1/32767: x = q / 32767 correctly rounded, the
        // same float whatever computes it.
        for (std::size_t i = 0; i < n; i++)
            out[i] = gr_complex(d_raw[2 * i] / 32767.0f, d_raw[2 * i + 1] / 32767.0f);
        return true;
    }

    // After a pass (every sample played): each hashed file's remaining bytes (past the
    // shortest channel, a partial sample) join its hash, which must be core:sha512's;
    // the hashes start over for the next pass. A mismatch throws: the stream ends here.
    void check_pass()
    {
        if (d_pass_checked)
            return;
        d_pass_checked = true;
        std::vector<char> rest(64 * 1024);
        for (std::size_t c = 0; c < d_channels.size(); c++) {
            if (!d_hashes[c])
                continue;
            while (d_files[c].read(rest.data(), std::streamsize(rest.size())) || d_files[c].gcount() > 0)
                d_hashes[c]->update(rest.data(), std::size_t(d_files[c].gcount()));
            if (d_hashes[c]->finish() != d_channels[c].data_sha512)
                throw std::runtime_error(
                    "SigMF: " + d_channels[c].data_path + " no longer matches core:sha512 in " +
                    d_channels[c].meta_path + " (changed since the source checked it; the " +
                    std::to_string(d_samples) + " samples of this pass were read from it)");
        }
    }

    // A cf32 file's samples that are not usable (a file written by another tool, or
    // damaged) played as 0, counted, as sigmf_sink records them: nothing downstream sees
    // a NaN, an Inf or 3e38 from a recording. (ci16 samples are always usable.)
    void zero_unusable(gr_complex* out, std::size_t n)
    {
        if (core::all_usable(out, n))
            return;
        std::uint64_t bad = 0;
        for (std::size_t i = 0; i < n; i++)
            if (!core::is_usable(out[i])) {
                out[i] = 0;
                bad++;
            }
        d_unusable += bad;
        d_log.warn("unusable samples", [&] {
            return "played " + std::to_string(d_unusable) + " samples that are not finite or beyond "
                   "+-1e15 as 0 (so far)";
        });
    }

    // rx_time (and at sample 0 rx_rate, rx_freq) where a capture starts in [pos, pos+n).
    void tag_captures(std::size_t c, std::size_t n)
    {
        const std::uint64_t base = nitems_written(c) - d_pos; // this pass's sample 0
        for (const sigmf::capture& cap : d_channels[c].captures) {
            if (cap.sample_start < d_pos || cap.sample_start >= d_pos + n)
                continue;
            const std::uint64_t at = base + cap.sample_start;
            std::int64_t secs = 0;
            double frac = 0;
            // rx_time counts seconds since 1970 in an unsigned integer (UHD's): a capture
            // from before then has a time that tag cannot hold, and is tagged as one of
            // unknown time (it once became 2^64 - 1 seconds).
            const bool timed = !cap.datetime.empty() && sigmf::parse_iso8601(cap.datetime, secs, frac);
            if (timed && secs < 0)
                d_log.warn("pre-1970 time", [&] {
                    return "the capture at sample " + std::to_string(cap.sample_start) + " has core:datetime " +
                           cap.datetime + ", before 1970: tagged as a time unknown (rx_time 0)";
                });
            if (timed && secs >= 0)
                add_item_tag(c, at, pmt::intern("rx_time"),
                             pmt::make_tuple(pmt::from_uint64(std::uint64_t(secs)),
                                             pmt::from_double(frac)));
            else if (cap.sample_start > 0 || timed) // a gap all the same, time unknown
                add_item_tag(c, at, pmt::intern("rx_time"),
                             pmt::make_tuple(pmt::from_uint64(0), pmt::from_double(0)));
            if (cap.sample_start == 0) {
                add_item_tag(c, at, pmt::intern("rx_rate"),
                             pmt::from_double(d_channels[c].sample_rate));
                if (cap.frequency != 0)
                    add_item_tag(c, at, pmt::intern("rx_freq"), pmt::from_double(cap.frequency));
            }
        }
    }

    const std::vector<sigmf::channel> d_channels;
    const bool d_repeat;
    const bool d_ci16;
    std::vector<std::ifstream> d_files;
    std::vector<std::unique_ptr<sigmf::sha512_stream>> d_hashes; // per channel; null: unchecked
    bool d_pass_checked = false;
    std::vector<std::int16_t> d_raw;
    std::uint64_t d_samples = 0, d_pos = 0, d_unusable = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

sigmf_source::sptr
sigmf_source::make(const std::string& collection, bool repeat, bool verify_hashes)
{
    std::vector<sigmf::channel> channels = sigmf::read_collection(collection);
    if (verify_hashes)
        sigmf::verify_data_hashes(channels);
    return gnuradio::make_block_sptr<sigmf_source_impl>(std::move(channels), repeat, verify_hashes);
}

} // namespace gpumimo
} // namespace gr
