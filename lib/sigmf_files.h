/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * SigMF metadata for multi-channel recordings (one .sigmf-data and .sigmf-meta per
 * channel, grouped by a .sigmf-collection): reading, writing and checking, for the
 * sigmf_source and sigmf_sink blocks. SigMF 1.x, https://sigmf.org.
 */
#ifndef INCLUDED_GPUMIMO_SIGMF_FILES_H
#define INCLUDED_GPUMIMO_SIGMF_FILES_H

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace sigmf {

/*! A capture segment: where it starts in the channel's samples and when. */
struct capture {
    std::uint64_t sample_start = 0;
    double frequency = 0;   //!< Hz; 0 when the metadata has none
    std::string datetime;   //!< ISO 8601 UTC, "" when the metadata has none
};

/*! One channel of a recording. */
struct channel {
    std::string name;       //!< the recording's base name (no extension)
    std::string meta_path, data_path;
    std::string datatype;   //!< "ci16_le" or "cf32_le"
    double sample_rate = 0;
    std::vector<capture> captures;
    std::uint64_t samples = 0; //!< whole samples in the data file
    std::uint64_t trailing_bytes = 0; //!< bytes after the last whole sample (truncation)
};

/*! Bytes per sample of a supported datatype; std::runtime_error for any other. */
std::size_t sample_bytes(const std::string& datatype);

/*!
 * Reads a .sigmf-collection and every channel it names (paths relative to the
 * collection's folder), checks each metadata file against its hash in the collection
 * when one is given, and that the channels agree in datatype and sample rate.
 * std::runtime_error naming the file and what is wrong: unreadable or malformed JSON,
 * missing fields, a missing data file, an unsupported datatype, a hash mismatch, a
 * sample-rate or datatype mismatch between channels.
 */
std::vector<channel> read_collection(const std::string& path);

/*! Writes a channel's .sigmf-meta (global, captures, no annotations). */
void write_meta(const channel& ch, const std::string& description);
/*! Writes the .sigmf-collection naming the channels, with their metadata's SHA-512. */
void write_collection(const std::string& path,
                      const std::vector<channel>& channels,
                      const std::string& description);

/*! The SHA-512 of a file, lowercase hex. */
std::string sha512_file(const std::string& path);
/*! UTC seconds since 1970 <-> ISO 8601 ("2026-11-22T10:00:00.250000000Z"). */
std::string iso8601(std::int64_t seconds, double fraction);
bool parse_iso8601(const std::string& text, std::int64_t& seconds, double& fraction);

} // namespace sigmf
} // namespace gpumimo
} // namespace gr

#endif
