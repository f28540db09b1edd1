/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NAME.frame.json through nlohmann::json, every field checked before use.
 */
#include "frame_description.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/file_bytes.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace gpumimo {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& label, const std::string& what)
{
    throw std::runtime_error(label + ": " + what);
}

const json* find(const json& j, const char* key) { return j.contains(key) ? &j.at(key) : nullptr; }

std::int64_t integer(const json& j, const char* key, const std::string& label,
                     std::int64_t lo, std::int64_t hi)
{
    const json* v = find(j, key);
    if (!v)
        fail(label, std::string("has no ") + key);
    if (!v->is_number_integer())
        fail(label, std::string(key) + " must be a whole number");
    // A huge unsigned value does not fit an int64: compared as unsigned first.
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(hi))
        fail(label, std::string(key) + " is out of range (" + std::to_string(lo) + ".." +
                        std::to_string(hi) + ")");
    const std::int64_t x = v->get<std::int64_t>();
    if (x < lo || x > hi)
        fail(label, std::string(key) + " = " + std::to_string(x) + " is out of range (" +
                        std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return x;
}

std::string text(const json& j, const char* key, const std::string& label)
{
    const json* v = find(j, key);
    if (!v)
        fail(label, std::string("has no ") + key);
    if (!v->is_string())
        fail(label, std::string(key) + " must be a string");
    return v->get<std::string>();
}

std::optional<double> real(const json& j, const char* key, const std::string& label)
{
    const json* v = find(j, key);
    if (!v)
        return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>()))
        fail(label, std::string(key) + " must be a finite number");
    return v->get<double>();
}

std::optional<std::int64_t> optional_integer(const json& j, const char* key,
                                             const std::string& label, std::int64_t hi)
{
    if (!find(j, key))
        return std::nullopt;
    return integer(j, key, label, 0, hi);
}

} // namespace

frame_description parse_frame_description(const std::string& input, const std::string& label)
{
    json j;
    try {
        j = json::parse(input);
    } catch (const json::exception& e) {
        fail(label, std::string("is not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object())
        fail(label, "is not a JSON object");
    frame_description d;
    // Older recordings have no version: format 1, whose pilots this receiver cannot read.
    d.frame_version = find(j, "frame_version") ? int(integer(j, "frame_version", label, 1, 1000)) : 1;
    // Format 3 is format 4 without pilot blocks after the first: its recordings still play.
    if (d.frame_version != core::frame_format_version && d.frame_version != 3)
        fail(label, "frame_version " + std::to_string(d.frame_version) +
                        " is not a frame format this receiver reads (3 or " +
                        std::to_string(core::frame_format_version) +
                        ", docs/frame.md \"Versions\"): re-record it with gpumimo_make_recording");
    d.preset = text(j, "preset", label);
    d.streams = int(integer(j, "streams", label, 1, 8));
    d.antennas = int(integer(j, "antennas", label, 1, 16));
    d.modulation = text(j, "modulation", label);
    d.payload_symbols = int(integer(j, "payload_symbols", label, 1, core::max_payload_symbols));
    if (find(j, "pilot_interval")) {
        if (d.frame_version < 4)
            fail(label, "pilot_interval is a field of frame format 4, not " +
                            std::to_string(d.frame_version));
        d.pilot_interval = int(integer(j, "pilot_interval", label, 0, core::max_payload_symbols));
    }
    if (d.antennas < d.streams)
        fail(label, "antennas (" + std::to_string(d.antennas) + ") must be at least streams (" +
                        std::to_string(d.streams) + ")");
    try { // the preset and modulation names, and the frame as a whole
        core::make_frame_format(d.preset, d.streams, d.modulation, d.payload_symbols,
                                d.pilot_interval);
    } catch (const std::invalid_argument& e) {
        fail(label, e.what());
    }
    d.prbs_order = find(j, "prbs_order") ? int(integer(j, "prbs_order", label, 23, 23)) : 23;
    const std::int64_t seed =
        integer(j, "prbs_seed", label, 1, std::numeric_limits<std::uint32_t>::max());
    if ((seed & 0x7FFFFF) == 0)
        fail(label, "prbs_seed's low 23 bits must not all be 0");
    d.prbs_seed = std::uint32_t(seed);
    if (find(j, "code")) {
        d.code = text(j, "code", label);
        if (!d.code.empty()) {
            if (!core::is_builtin_ldpc_code_name(d.code))
                fail(label,
                     "code " + core::quoted_text(d.code) +
                         " is not a built-in code (wimax_<n> or "
                         "nr_bg<g>_z<Z>[_rows<r>])");
            try { // the name, and whether a codeword fits the frame
                const core::frame_format f = core::make_frame_format(
                    d.preset, d.streams, d.modulation, d.payload_symbols, d.pilot_interval);
                const core::ldpc_code c = core::ldpc_code_by_name(d.code);
                if (std::size_t(c.n) > f.payload_bits())
                    fail(label, "code " + d.code + " is longer than the frame's " +
                                    std::to_string(f.payload_bits()) + " payload bits");
            } catch (const std::invalid_argument& e) {
                fail(label, e.what());
            }
        }
    }
    d.frames = optional_integer(j, "frames", label, std::numeric_limits<std::int64_t>::max());
    d.gap = optional_integer(j, "gap", label, std::numeric_limits<int>::max());
    d.delay = optional_integer(j, "delay", label, std::numeric_limits<int>::max());
    d.snr_db = real(j, "snr_db", label);
    d.cfo_spacings = real(j, "cfo_spacings", label);
    if (const json* taps = find(j, "taps")) {
        if (!taps->is_array() || taps->size() > 64)
            fail(label, "taps must be an array of at most 64 powers");
        for (const json& t : *taps) {
            if (!t.is_number() || !(t.get<double>() >= 0) || !std::isfinite(t.get<double>()))
                fail(label, "taps must be finite powers >= 0");
            d.taps.push_back(t.get<double>());
        }
    }
    return d;
}

frame_description read_frame_description(const std::string& path)
{
    // A regular file of at most max_frame_description_bytes (the messages name the path).
    const std::vector<char> bytes = core::read_regular_file(path, max_frame_description_bytes);
    return parse_frame_description(std::string(bytes.begin(), bytes.end()), path);
}

} // namespace gpumimo
} // namespace gr
