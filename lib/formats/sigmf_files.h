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
    std::string data_sha512; //!< core:sha512 of the data file, lowercase hex; "" if none
    std::uint64_t samples = 0; //!< whole samples in the data file
    std::uint64_t trailing_bytes = 0; //!< bytes after the last whole sample (truncation)
};

/*! One entry of a collection's core:streams. */
struct stream_entry {
    std::string name; //!< the recording's base name, relative to the collection's folder
    std::string hash; //!< SHA-512 of its .sigmf-meta; "" if none
};

/*! The largest metadata or collection file read (metadata is text; a larger file is
 *  refused before it is read). */
constexpr std::uint64_t max_metadata_bytes = 64ull << 20;

/*! Bytes per sample of a supported datatype; std::runtime_error for any other. */
std::size_t sample_bytes(const std::string& datatype);

/*!
 * The parsers behind read_collection, on text in memory (what the fuzz harnesses in
 * tests/fuzz drive). `label` names the file in errors. Every one throws
 * std::runtime_error("SigMF: <label>: <what is wrong>") and nothing else.
 *
 * parse_collection: the core:streams of a .sigmf-collection, each name checked by
 * check_stream_name, none listed twice.
 */
std::vector<stream_entry> parse_collection(const std::string& text, const std::string& label);
/*! A .sigmf-meta: datatype, sample rate, captures (core:sample_start a non-negative
 *  integer, ascending; core:datetime a real ISO 8601 UTC time), core:sha512. */
channel parse_meta(const std::string& text, const std::string& label);
/*! The data file's length in bytes against the metadata: samples, trailing bytes, and
 *  every capture starting inside the data. */
void apply_data_layout(channel& ch, std::uint64_t data_bytes);
/*! A stream name must stay inside the collection's folder: not empty, not absolute, no
 *  ".." component, no NUL. One message for every refusal, checked before any file is
 *  touched, so that it reveals nothing about what exists outside. */
void check_stream_name(const std::string& name, const std::string& label);

/*!
 * Reads a .sigmf-collection and every channel it names (paths relative to the
 * collection's folder, which no name may leave: check_stream_name, then the resolved
 * path must still lie inside it), checks each metadata file against its hash in the
 * collection when one is given, and that the channels agree in datatype and sample
 * rate. std::runtime_error naming the file and what is wrong: unreadable or malformed
 * JSON, missing fields, a missing data file, an unsupported datatype, a hash mismatch,
 * a sample-rate or datatype mismatch between channels. Data files are not read here:
 * verify_data_hashes does that.
 */
std::vector<channel> read_collection(const std::string& path);

/*! Checks every channel's data file against its core:sha512 (when the metadata has
 *  one), reading it in 64 KiB pieces; std::runtime_error naming the first that differs. */
void verify_data_hashes(const std::vector<channel>& channels);

/*! SHA-512 of bytes given piece by piece (OpenSSL's EVP). */
class sha512_stream
{
public:
    sha512_stream();
    ~sha512_stream();
    sha512_stream(const sha512_stream&) = delete;
    sha512_stream& operator=(const sha512_stream&) = delete;
    void update(const void* data, std::size_t n);
    /*! The digest of everything given, lowercase hex; the stream starts over. */
    std::string finish();

private:
    void* d_ctx;
};

/*! Writes a channel's .sigmf-meta (global, captures, no annotations; core:sha512 when
 *  data_sha512 is set). */
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
