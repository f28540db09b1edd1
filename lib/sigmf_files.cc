/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * SigMF multi-channel metadata: JSON through nlohmann::json, hashes through OpenSSL.
 */
#include "sigmf_files.h"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace sigmf {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what)
{
    throw std::runtime_error("SigMF: " + file + ": " + what);
}

json read_json(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        fail(path, "cannot be opened");
    try {
        return json::parse(in);
    } catch (const json::exception& e) {
        fail(path, std::string("is not valid JSON (") + e.what() + ")");
    }
}

template <typename T>
T field(const json& j, const char* key, const std::string& file)
{
    if (!j.contains(key))
        fail(file, std::string("has no ") + key);
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        fail(file, std::string(key) + " has the wrong type");
    }
}

channel read_channel(const fs::path& folder, const std::string& name)
{
    channel ch;
    ch.name = name;
    ch.meta_path = (folder / (name + ".sigmf-meta")).string();
    ch.data_path = (folder / (name + ".sigmf-data")).string();
    const json meta = read_json(ch.meta_path);
    if (!meta.contains("global") || !meta["global"].is_object())
        fail(ch.meta_path, "has no global object");
    const json& g = meta["global"];
    ch.datatype = field<std::string>(g, "core:datatype", ch.meta_path);
    try {
        sample_bytes(ch.datatype);
    } catch (const std::runtime_error& e) {
        fail(ch.meta_path, e.what());
    }
    ch.sample_rate = field<double>(g, "core:sample_rate", ch.meta_path);
    if (!(ch.sample_rate > 0) || !std::isfinite(ch.sample_rate))
        fail(ch.meta_path, "core:sample_rate must be positive");
    if (g.contains("core:num_channels") && g["core:num_channels"] != 1)
        fail(ch.meta_path, "holds several channels in one file; this source reads one "
                           "channel per recording (a collection of them)");
    if (meta.contains("captures") && meta["captures"].is_array())
        for (const json& c : meta["captures"]) {
            capture cap;
            cap.sample_start = field<std::uint64_t>(c, "core:sample_start", ch.meta_path);
            cap.frequency = c.value("core:frequency", 0.0);
            cap.datetime = c.value("core:datetime", std::string());
            std::int64_t s;
            double f;
            if (!cap.datetime.empty() && !parse_iso8601(cap.datetime, s, f))
                fail(ch.meta_path, "core:datetime '" + cap.datetime + "' is not ISO 8601 UTC");
            if (!ch.captures.empty() && cap.sample_start <= ch.captures.back().sample_start)
                fail(ch.meta_path, "captures are not in ascending core:sample_start");
            ch.captures.push_back(cap);
        }
    if (ch.captures.empty())
        ch.captures.push_back(capture());
    std::error_code ec;
    const auto bytes = fs::file_size(ch.data_path, ec);
    if (ec)
        fail(ch.data_path, "is missing (" + ec.message() + ")");
    const std::size_t per = sample_bytes(ch.datatype);
    ch.samples = bytes / per;
    ch.trailing_bytes = bytes % per;
    return ch;
}

} // namespace

std::size_t sample_bytes(const std::string& datatype)
{
    if (datatype == "ci16_le")
        return 4;
    if (datatype == "cf32_le")
        return 8;
    throw std::runtime_error("datatype '" + datatype +
                             "' is not supported (ci16_le, cf32_le)");
}

std::vector<channel> read_collection(const std::string& path)
{
    const json c = read_json(path);
    if (!c.contains("collection") || !c["collection"].is_object())
        fail(path, "has no collection object");
    const json& col = c["collection"];
    if (!col.contains("core:streams") || !col["core:streams"].is_array() ||
        col["core:streams"].empty())
        fail(path, "has no core:streams");
    const fs::path folder = fs::path(path).parent_path();
    std::vector<channel> channels;
    for (const json& s : col["core:streams"]) {
        // SigMF 1.x: {"name": ..., "hash": ...}; older drafts: [name, hash].
        std::string name, hash;
        if (s.is_object()) {
            name = field<std::string>(s, "name", path);
            hash = s.value("hash", std::string());
        } else if (s.is_array() && !s.empty() && s[0].is_string()) {
            name = s[0].get<std::string>();
            if (s.size() > 1 && s[1].is_string())
                hash = s[1].get<std::string>();
        } else {
            fail(path, "a core:streams entry is neither {name, hash} nor [name, hash]");
        }
        channels.push_back(read_channel(folder, name));
        if (!hash.empty() && sha512_file(channels.back().meta_path) != hash)
            fail(channels.back().meta_path, "does not match its SHA-512 in " + path +
                                                " (edited or corrupt)");
    }
    for (const channel& ch : channels) {
        if (ch.datatype != channels[0].datatype)
            fail(ch.meta_path, "datatype " + ch.datatype + " differs from " +
                                   channels[0].name + "'s " + channels[0].datatype);
        if (ch.sample_rate != channels[0].sample_rate)
            fail(ch.meta_path, "sample-rate mismatch: " + std::to_string(ch.sample_rate) +
                                   " against " + channels[0].name + "'s " +
                                   std::to_string(channels[0].sample_rate));
    }
    return channels;
}

void write_meta(const channel& ch, const std::string& description)
{
    json caps = json::array();
    for (const capture& c : ch.captures) {
        json j = { { "core:sample_start", c.sample_start } };
        if (c.frequency != 0)
            j["core:frequency"] = c.frequency;
        if (!c.datetime.empty())
            j["core:datetime"] = c.datetime;
        caps.push_back(j);
    }
    const json meta = {
        { "global",
          { { "core:datatype", ch.datatype },
            { "core:sample_rate", ch.sample_rate },
            { "core:version", "1.0.0" },
            { "core:num_channels", 1 },
            { "core:recorder", "gr-gpumimo sigmf_sink" },
            { "core:description", description },
            { "core:collection", ch.name.substr(0, ch.name.rfind("_ch")) } } },
        { "captures", caps },
        { "annotations", json::array() }
    };
    std::ofstream out(ch.meta_path, std::ios::trunc);
    if (!out)
        fail(ch.meta_path, "cannot be written");
    out << meta.dump(2) << "\n";
}

void write_collection(const std::string& path,
                      const std::vector<channel>& channels,
                      const std::string& description)
{
    json streams = json::array();
    for (const channel& ch : channels)
        streams.push_back({ { "name", ch.name }, { "hash", sha512_file(ch.meta_path) } });
    const json c = { { "collection",
                       { { "core:version", "1.0.0" },
                         { "core:description", description },
                         { "core:streams", streams } } } };
    std::ofstream out(path, std::ios::trunc);
    if (!out)
        fail(path, "cannot be written");
    out << c.dump(2) << "\n";
}

std::string sha512_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot be opened to hash");
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha512(), nullptr);
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        EVP_DigestUpdate(ctx, buf.data(), std::size_t(in.gcount()));
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    std::ostringstream hex;
    for (unsigned i = 0; i < len; i++)
        hex << std::hex << std::setw(2) << std::setfill('0') << int(md[i]);
    return hex.str();
}

std::string iso8601(std::int64_t seconds, double fraction)
{
    const std::time_t t = std::time_t(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char frac[16];
    std::snprintf(frac, sizeof frac, "%.9f", fraction);
    return std::string(buf) + (frac + 1) + "Z"; // frac + 1 drops the leading 0
}

bool parse_iso8601(const std::string& text, std::int64_t& seconds, double& fraction)
{
    std::tm tm{};
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
                    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const char* rest = text.c_str() + consumed;
    fraction = 0;
    if (*rest == '.') {
        char* end = nullptr;
        fraction = std::strtod(rest, &end); // ".25" parses as 0.25
        rest = end;
    }
    if (std::string(rest) != "Z")
        return false;
    seconds = std::int64_t(timegm(&tm));
    return true;
}

} // namespace sigmf
} // namespace gpumimo
} // namespace gr
