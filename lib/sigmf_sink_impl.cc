/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The SigMF multi-channel sink: one data file per channel, captures from UHD's tags,
 * metadata and collection at stop.
 */
#include "block_support/block_faults.h"
#include "formats/sigmf_files.h"

#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/sigmf_sink.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {

class sigmf_sink_impl : public sigmf_sink
{
public:
    sigmf_sink_impl(const std::string& prefix,
                    int channels,
                    double sample_rate,
                    double center_freq,
                    const std::string& datatype,
                    double full_scale,
                    const std::string& description)
        : gr::sync_block("sigmf_sink",
                         gr::io_signature::make(channels, channels, sizeof(gr_complex)),
                         gr::io_signature::make(0, 0, 0)),
          d_prefix(prefix),
          d_ci16(datatype == "ci16_le"),
          d_to_int(float(32767.0 / full_scale)),
          d_description(description)
    {
        std::string base = prefix;
        const auto slash = base.find_last_of('/');
        if (slash != std::string::npos)
            base = base.substr(slash + 1);
        for (int c = 0; c < channels; c++) {
            sigmf::channel ch;
            ch.name = base + "_ch" + std::to_string(c);
            ch.meta_path = prefix + "_ch" + std::to_string(c) + ".sigmf-meta";
            ch.data_path = prefix + "_ch" + std::to_string(c) + ".sigmf-data";
            ch.datatype = datatype;
            ch.sample_rate = sample_rate;
            ch.captures.push_back(sigmf::capture());
            ch.captures[0].frequency = center_freq;
            d_channels.push_back(ch);
            d_files.emplace_back(ch.data_path, std::ios::binary | std::ios::trunc);
            if (!d_files.back())
                throw std::runtime_error("sigmf_sink: cannot write " + ch.data_path);
            d_hashes.push_back(std::make_unique<sigmf::sha512_stream>());
        }
    }

    std::string collection() const override { return d_prefix + ".sigmf-collection"; }
    std::uint64_t samples() const override { return d_samples; }
    std::uint64_t clipped_samples() const override { return d_clipped; }
    std::uint64_t non_finite_samples() const override { return d_non_finite; }
    std::uint64_t work_failures() const override { return d_faults.count(); }

    bool start() override
    {
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        const double s = std::chrono::duration<double>(now).count();
        d_wall_clock = sigmf::iso8601(std::int64_t(s), s - std::floor(s));
        return true;
    }

    bool stop() override
    {
        for (auto& f : d_files)
            f.flush();
        for (std::size_t c = 0; c < d_channels.size(); c++) {
            sigmf::channel& ch = d_channels[c];
            if (ch.captures[0].datetime.empty())
                ch.captures[0].datetime = d_wall_clock;
            // The data's SHA-512, hashed as it was written, so that a player can tell a
            // corrupted file; none when a write failed (the file is not what was sent).
            ch.data_sha512 = d_unwritten ? std::string() : d_hashes[c]->finish();
            sigmf::write_meta(ch, d_description);
        }
        sigmf::write_collection(collection(), d_channels, d_description);
        if (d_clipped || d_non_finite)
            d_logger->warn("{} samples clipped to full scale, {} non-finite written as 0",
                           d_clipped, d_non_finite);
        return true;
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star&) override
    {
        const std::size_t n = noutput_items;
        try {
            follow_tags(n);
            for (std::size_t c = 0; c < d_channels.size(); c++) {
                const gr_complex* x = static_cast<const gr_complex*>(input_items[c]);
                if (!write(c, x, n))
                    throw std::runtime_error("sigmf_sink: writing " + d_channels[c].data_path +
                                             " failed (disk full?)");
            }
            d_samples += n;
        } catch (...) { // the samples are lost, counted; the flowgraph goes on
            d_faults.caught(std::to_string(n) + " samples per channel are not recorded");
            d_unwritten += n;
        }
        return noutput_items;
    }

private:
    bool write(std::size_t c, const gr_complex* x, std::size_t n)
    {
        if (!d_ci16) {
            // Unusable samples (core::is_usable: NaN, Inf, beyond +-1e15) are written as
            // 0 and counted, as for ci16: a recording holds nothing a player would refuse.
            auto finite = [](const gr_complex& v) { return core::is_usable(v); };
            const std::size_t bad = n - std::size_t(std::count_if(x, x + n, finite));
            if (bad) {
                d_clean.assign(x, x + n);
                for (auto& v : d_clean)
                    if (!finite(v))
                        v = 0;
                d_non_finite += bad;
                x = d_clean.data();
            }
            if (!d_files[c].write(reinterpret_cast<const char*>(x),
                                  std::streamsize(n * sizeof(gr_complex))))
                return false;
            d_hashes[c]->update(x, n * sizeof(gr_complex));
            return true;
        }
        d_raw.resize(2 * n);
        for (std::size_t i = 0; i < 2 * n; i++) {
            const float v = (i % 2 ? x[i / 2].imag() : x[i / 2].real()) * d_to_int;
            if (!std::isfinite(v)) {
                d_non_finite++;
                d_raw[i] = 0;
                continue;
            }
            const float r = std::nearbyint(v);
            d_clipped += r > 32767.0f || r < -32767.0f;
            d_raw[i] = std::int16_t(std::max(-32767.0f, std::min(32767.0f, r)));
        }
        const std::size_t bytes = d_raw.size() * sizeof(std::int16_t);
        if (!d_files[c].write(reinterpret_cast<const char*>(d_raw.data()),
                              std::streamsize(bytes)))
            return false;
        d_hashes[c]->update(d_raw.data(), bytes);
        return true;
    }

    // UHD's rx_time tags on input 0 open captures; rx_freq sets the frequency.
    void follow_tags(std::size_t n)
    {
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + n);
        std::sort(tags.begin(), tags.end(), tag_t::offset_compare);
        for (const tag_t& t : tags) {
            const std::string key = pmt::symbol_to_string(t.key);
            if (key == "rx_time" && pmt::is_tuple(t.value) && pmt::length(t.value) == 2) {
                const std::string when =
                    sigmf::iso8601(std::int64_t(pmt::to_uint64(pmt::tuple_ref(t.value, 0))),
                                   pmt::to_double(pmt::tuple_ref(t.value, 1)));
                for (auto& ch : d_channels) {
                    if (t.offset == 0)
                        ch.captures[0].datetime = when;
                    else {
                        sigmf::capture cap;
                        cap.sample_start = t.offset;
                        cap.frequency = ch.captures.back().frequency;
                        cap.datetime = when;
                        ch.captures.push_back(cap);
                    }
                }
            } else if (key == "rx_freq" && pmt::is_number(t.value)) {
                for (auto& ch : d_channels)
                    ch.captures.back().frequency = pmt::to_double(t.value);
            }
        }
    }

    const std::string d_prefix;
    const bool d_ci16;
    const float d_to_int;
    const std::string d_description;
    std::vector<sigmf::channel> d_channels;
    std::vector<std::ofstream> d_files;
    std::vector<std::int16_t> d_raw;
    std::vector<gr_complex> d_clean; // cf32: a call's samples with the non-finite ones 0
    std::string d_wall_clock;
    std::vector<std::unique_ptr<sigmf::sha512_stream>> d_hashes; // of each data file
    std::uint64_t d_samples = 0, d_clipped = 0, d_non_finite = 0, d_unwritten = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

sigmf_sink::sptr sigmf_sink::make(const std::string& prefix,
                                  int channels,
                                  double sample_rate,
                                  double center_freq,
                                  const std::string& datatype,
                                  double full_scale,
                                  const std::string& description)
{
    if (channels < 1 || channels > 64)
        throw std::invalid_argument("sigmf_sink: channels must be 1..64");
    if (!(sample_rate > 0) || !std::isfinite(sample_rate))
        throw std::invalid_argument("sigmf_sink: sample_rate must be positive");
    if (!(full_scale > 0) || !std::isfinite(full_scale))
        throw std::invalid_argument("sigmf_sink: full_scale must be positive");
    sigmf::sample_bytes(datatype); // throws runtime_error for other datatypes
    return gnuradio::make_block_sptr<sigmf_sink_impl>(prefix, channels, sample_rate,
                                                      center_freq, datatype, full_scale,
                                                      description);
}

} // namespace gpumimo
} // namespace gr
