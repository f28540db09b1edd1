/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_SIGMF_SINK_H
#define INCLUDED_GPUMIMO_SIGMF_SINK_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief Records C complex streams as a multi-channel SigMF recording: prefix_ch<k>
 * .sigmf-data and .sigmf-meta per channel and prefix.sigmf-collection naming them with
 * their metadata's SHA-512.
 * \ingroup gpumimo
 *
 * datatype ci16_le (q = round(x / full_scale * 32767), clamped; clipped and non-finite
 * samples counted and logged, non-finite written as 0) or cf32_le (as is, but for
 * non-finite samples, written as 0 and counted). Each metadata file carries core:sha512,
 * the SHA-512 of its data file as written (none when a write failed), which
 * sigmf_source checks. The
 * captures follow UHD's rx_time tags on input 0: the first gives the recording's
 * core:datetime (else the wall clock at start), each later one opens a capture (a gap in
 * time, e.g. an overflow); rx_freq tags set core:frequency, else center_freq. The
 * metadata is written when the flowgraph stops.
 */
class GPUMIMO_API sigmf_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<sigmf_sink> sptr;

    static sptr make(const std::string& prefix,
                     int channels,
                     double sample_rate,
                     double center_freq = 0,
                     const std::string& datatype = "ci16_le",
                     double full_scale = 1.0,
                     const std::string& description = "");

    /*! The collection's path: prefix + ".sigmf-collection". */
    virtual std::string collection() const = 0;
    virtual std::uint64_t samples() const = 0;
    /*! ci16: samples clamped to full scale. */
    virtual std::uint64_t clipped_samples() const = 0;
    /*! Non-finite sample parts (ci16) or samples (cf32) written as 0: for cf32 every
     *  sample core::is_usable refuses (NaN, Inf, beyond +-1e15), the predicate
     *  sigmf_source applies when playing. */
    virtual std::uint64_t non_finite_samples() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
