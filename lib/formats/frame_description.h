/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The frame description that travels beside a recording (NAME.frame.json, written by
 * gpumimo_make_recording, read by gpumimo_replay): what a receiver must know to play
 * it. No GNU Radio header here: the fuzz harness (tests/fuzz) builds it alone.
 */
#ifndef INCLUDED_GPUMIMO_FRAME_DESCRIPTION_H
#define INCLUDED_GPUMIMO_FRAME_DESCRIPTION_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Exported from the module's library for its Python bindings (the library hides
// everything else by default).
#define GPUMIMO_FRAME_DESCRIPTION_API __attribute__((visibility("default")))

namespace gr {
namespace gpumimo {

/*! A recording's frame description: the fields a receiver needs, and the channel it
 *  went through where the recording says (informational). */
struct frame_description {
    int frame_version = 0;  //!< core::frame_format_version (a missing one reads as 1)
    std::string preset;     //!< numerology preset ("small", "fft512", "lte20")
    int streams = 0;        //!< 1..8
    int antennas = 0;       //!< the recording's channels: streams..16
    std::string modulation; //!< parse_modulation's names: "bpsk" ... "1024qam"
    int payload_symbols = 0; //!< 1..core::max_payload_symbols
    int pilot_interval = 0; //!< core::frame_format::pilot_interval (format 4; 0 when absent)
    int prbs_order = 23;    //!< only 23 (mimo_ofdm_tx's payload "prbs")
    std::uint32_t prbs_seed = 0; //!< low 23 bits not all zero
    /*! The payload's LDPC code (core::coded_payload): "" uncoded, else a built-in name,
     *  "wimax_<n>" or "nr_bg<g>_z<Z>[_rows<r>]" (a description names no file: nothing
     *  outside the recording is read). */
    std::string code;
    std::optional<std::int64_t> frames, gap, delay;
    std::optional<double> snr_db, cfo_spacings;
    std::vector<double> taps; //!< empty when not given
};

/*! The largest frame description read: a description is a few hundred bytes. */
constexpr std::uint64_t max_frame_description_bytes = 1 << 20;

/*!
 * Parses a frame description from JSON text; `label` names it in errors. Every field is
 * checked for its type and range before anything is sized by it (the frame itself
 * through core::make_frame_format). std::runtime_error("<label>: <what is wrong>") for
 * text that is not such a description, and nothing else.
 */
GPUMIMO_FRAME_DESCRIPTION_API frame_description
parse_frame_description(const std::string& text, const std::string& label);

/*! parse_frame_description of the file at `path`: a missing, unreadable or larger than
 *  max_frame_description_bytes file is a std::runtime_error naming it. */
GPUMIMO_FRAME_DESCRIPTION_API frame_description read_frame_description(const std::string& path);

} // namespace gpumimo
} // namespace gr

#endif
