/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_SIGMF_SOURCE_H
#define INCLUDED_GPUMIMO_SIGMF_SOURCE_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief Plays a multi-channel SigMF recording: a .sigmf-collection naming one
 * .sigmf-meta/.sigmf-data pair per channel (ci16_le, as an N310 records, or cf32_le).
 * \ingroup gpumimo
 *
 * One complex float output per channel (ci16 scaled by 1/32767, as UHD converts sc16).
 * Like a UHD source, it tags sample 0 of every output with rx_time (from the first
 * capture's core:datetime), rx_rate and rx_freq, and every later capture's first sample
 * with rx_time: a capture boundary is a gap in time, as after a radio overflow, and
 * mimo_ofdm_sync drops frames across it. repeat plays the recording again (rx_time at
 * each start).
 *
 * Refused with std::runtime_error naming the file: unreadable or malformed metadata, a
 * missing data file, a metadata file that does not match its hash in the collection, a
 * data file that does not match the core:sha512 of its metadata (verify_hashes: each
 * data file is read once through SHA-512 before playing, and what is played goes through
 * it again as it is read: a file that no longer matches at the end of a pass, rewritten
 * since the check, ends the stream there (logged, work_failures()); false skips both for
 * huge recordings), an unsupported datatype, channels that disagree in datatype or sample
 * rate, a stream name that leaves the collection's folder (absolute, "..", or a link
 * out of it: one message whatever exists there), the same stream listed twice, a capture
 * starting past the data's end, a negative core:sample_start or an impossible
 * core:datetime. Logged: a data file that ends inside a sample (the partial sample is
 * ignored), channels of different lengths (play stops at the shortest). A data file
 * that cannot be read while playing ends the stream (logged, work_failures()).
 */
class GPUMIMO_API sigmf_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<sigmf_source> sptr;

    static sptr
    make(const std::string& collection, bool repeat = false, bool verify_hashes = true);

    virtual int channels() const = 0;
    virtual double sample_rate() const = 0;
    virtual double center_freq() const = 0;
    /*! The first capture's core:datetime ("" when the recording has none). */
    virtual std::string start_time() const = 0;
    /*! Samples per channel played in one pass (the shortest channel's). */
    virtual std::uint64_t samples() const = 0;
    /*! Samples of a cf32 recording played as 0 because they were not usable (NaN, Inf,
     *  beyond +-1e15: core::is_usable, the predicate sigmf_sink applies when recording),
     *  counted over every channel and pass; logged, rate limited. */
    virtual std::uint64_t unusable_samples() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
