/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * SigMF multi-channel metadata: JSON through nlohmann::json, hashes through OpenSSL.
 */
#include "sigmf_files.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/file_bytes.h>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <sys/stat.h>

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

// A metadata file's text: a regular file, refused unread when it is larger than any
// metadata can be (core::read_regular_file's messages name the path).
std::string read_text(const std::string& path)
{
    const std::vector<char> bytes = gr::gpumimo::core::read_regular_file(path, max_metadata_bytes);
    return std::string(bytes.begin(), bytes.end());
}

// JSON values a metadata or collection file may hold. The parsed tree takes about 40
// times its text (a 64 MiB file of nested arrays took 2.7 GB): a file with more values
// than any recording's metadata has is refused before it is parsed. (The module's own
// 16-channel collections hold a few hundred.)
constexpr std::size_t max_json_values = std::size_t(1) << 20;

// An upper bound on the values in JSON text, in one pass: every value but the first
// follows a comma or opens a container (strings, escapes included, skipped).
std::size_t json_values_at_most(const std::string& text)
{
    std::size_t n = 1;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); i++) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == ',' || c == '[' || c == '{') {
            n++;
        }
    }
    return n;
}

json parse_json(const std::string& text, const std::string& label)
{
    if (json_values_at_most(text) > max_json_values)
        fail(label, "holds more than " + std::to_string(max_json_values) +
                        " JSON values, more than SigMF metadata of a recording has (refused)");
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        fail(label, std::string("is not valid JSON (") + e.what() + ")");
    }
}

template <typename T>
T field(const json& j, const char* key, const std::string& file)
{
    if (!j.is_object() || !j.contains(key))
        fail(file, std::string("has no ") + key);
    const json& v = j.at(key);
    // nlohmann converts between number kinds silently (-5 to 18446744073709551611 as an
    // unsigned): each kind is checked first.
    bool right_kind;
    if constexpr (std::is_same_v<T, std::string>)
        right_kind = v.is_string();
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        right_kind = v.is_number_unsigned();
    else if constexpr (std::is_same_v<T, double>)
        right_kind = v.is_number();
    else
        right_kind = false;
    if (!right_kind)
        fail(file, std::string(key) + " has the wrong type");
    return v.get<T>();
}

// An optional field: `fallback` when absent, the field's checks when present.
template <typename T>
T optional_field(const json& j, const char* key, const std::string& file, T fallback)
{
    return j.contains(key) ? field<T>(j, key, file) : fallback;
}

bool is_lower_hex(const std::string& s, std::size_t length)
{
    return s.size() == length && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

} // namespace

void check_stream_name(const std::string& name, const std::string& label)
{
    const fs::path p(name);
    bool escapes = name.empty() || p.is_absolute() || p.has_root_name() ||
                   p.has_root_directory() || name.find('\0') != std::string::npos;
    for (const auto& part : p)
        escapes |= part == "..";
    if (escapes)
        fail(label, "a core:streams name leaves the collection's folder (refused)");
}

std::vector<stream_entry> parse_collection(const std::string& text, const std::string& label)
{
    const json c = parse_json(text, label);
    if (!c.is_object() || !c.contains("collection") || !c["collection"].is_object())
        fail(label, "has no collection object");
    const json& col = c["collection"];
    if (!col.contains("core:streams") || !col["core:streams"].is_array() ||
        col["core:streams"].empty())
        fail(label, "has no core:streams");
    std::vector<stream_entry> streams;
    // Names as written, normalised ("./a", ".//a" and "a" are one name): a set, so that a
    // collection of a million names is read in linear time (pairwise took hours).
    std::unordered_set<std::string> seen;
    for (const json& s : col["core:streams"]) {
        // SigMF 1.x: {"name": ..., "hash": ...}; older drafts: [name, hash].
        stream_entry e;
        if (s.is_object()) {
            e.name = field<std::string>(s, "name", label);
            e.hash = optional_field<std::string>(s, "hash", label, "");
        } else if (s.is_array() && !s.empty() && s[0].is_string()) {
            e.name = s[0].get<std::string>();
            if (s.size() > 1 && s[1].is_string())
                e.hash = s[1].get<std::string>();
        } else {
            fail(label, "a core:streams entry is neither {name, hash} nor [name, hash]");
        }
        check_stream_name(e.name, label);
        if (!seen.insert(fs::path(e.name).lexically_normal().string()).second)
            fail(label, "lists the stream " + core::quoted_text(e.name) + " twice");
        streams.push_back(std::move(e));
    }
    return streams;
}

channel parse_meta(const std::string& text, const std::string& label)
{
    channel ch;
    const json meta = parse_json(text, label);
    if (!meta.is_object() || !meta.contains("global") || !meta["global"].is_object())
        fail(label, "has no global object");
    const json& g = meta["global"];
    ch.datatype = field<std::string>(g, "core:datatype", label);
    try {
        sample_bytes(ch.datatype);
    } catch (const std::runtime_error& e) {
        fail(label, e.what());
    }
    ch.sample_rate = field<double>(g, "core:sample_rate", label);
    if (!(ch.sample_rate > 0) || !std::isfinite(ch.sample_rate))
        fail(label, "core:sample_rate must be positive");
    if (g.contains("core:num_channels") && g["core:num_channels"] != 1)
        fail(label, "holds several channels in one file; this source reads one "
                    "channel per recording (a collection of them)");
    ch.data_sha512 = optional_field<std::string>(g, "core:sha512", label, "");
    for (char& c : ch.data_sha512)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (!ch.data_sha512.empty() && !is_lower_hex(ch.data_sha512, 128))
        fail(label, "core:sha512 is not 128 hexadecimal digits");
    if (meta.contains("captures")) {
        if (!meta["captures"].is_array())
            fail(label, "captures is not an array");
        for (const json& c : meta["captures"]) {
            if (!c.is_object())
                fail(label, "a capture is not an object");
            capture cap;
            cap.sample_start = field<std::uint64_t>(c, "core:sample_start", label);
            cap.frequency = optional_field<double>(c, "core:frequency", label, 0.0);
            if (!std::isfinite(cap.frequency))
                fail(label, "core:frequency is not finite");
            cap.datetime = optional_field<std::string>(c, "core:datetime", label, "");
            std::int64_t s;
            double f;
            if (!cap.datetime.empty() && !parse_iso8601(cap.datetime, s, f))
                fail(label,
                     "core:datetime " + core::quoted_text(cap.datetime) +
                         " is not ISO 8601 UTC");
            if (!ch.captures.empty() && cap.sample_start <= ch.captures.back().sample_start)
                fail(label, "captures are not in ascending core:sample_start");
            ch.captures.push_back(cap);
        }
    }
    if (ch.captures.empty())
        ch.captures.push_back(capture());
    return ch;
}

void apply_data_layout(channel& ch, std::uint64_t data_bytes)
{
    const std::size_t per = sample_bytes(ch.datatype);
    ch.samples = data_bytes / per;
    ch.trailing_bytes = data_bytes % per;
    for (const capture& c : ch.captures)
        if (c.sample_start > 0 && c.sample_start >= ch.samples)
            fail(ch.meta_path, "a capture starts at sample " + std::to_string(c.sample_start) +
                                   ", past the data's " + std::to_string(ch.samples) +
                                   " samples");
}

std::size_t sample_bytes(const std::string& datatype)
{
    if (datatype == "ci16_le")
        return 4;
    if (datatype == "cf32_le")
        return 8;
    throw std::runtime_error("datatype " + core::quoted_text(datatype) +
                             " is not supported (ci16_le, cf32_le)");
}

std::vector<channel> read_collection(const std::string& path)
{
    const std::vector<stream_entry> streams = parse_collection(read_text(path), path);
    const fs::path folder = fs::path(path).parent_path();
    std::error_code ec;
    const fs::path real_folder = fs::weakly_canonical(folder.empty() ? "." : folder, ec);
    std::vector<channel> channels;
    // Each data file once: by its resolved path and, where it exists, its device and
    // inode (a link inside the folder, or a second hard link, to another stream's file).
    std::unordered_map<std::string, std::string> data_of;
    std::map<std::pair<dev_t, ino_t>, std::string> inode_of;
    for (const stream_entry& s : streams) {
        const fs::path meta = folder / (s.name + ".sigmf-meta");
        const fs::path data = folder / (s.name + ".sigmf-data");
        // The name stays inside lexically (parse_collection); through symbolic links it
        // must still resolve inside, with the same message whether a file exists.
        for (const fs::path& f : { meta, data }) {
            const fs::path real = fs::weakly_canonical(f, ec);
            const auto rel = real.lexically_relative(real_folder);
            if (ec || rel.empty() || *rel.begin() == "..")
                fail(path, "a core:streams name leaves the collection's folder (refused)");
        }
        const auto same_file = [&](const std::string& other) {
            fail(path,
                 "streams " + core::quoted_text(other) + " and " + core::quoted_text(s.name) +
                     " are the same data file (one antenna's samples as two)");
        };
        const std::string real_data = fs::weakly_canonical(data, ec).string();
        if (!data_of.emplace(real_data, s.name).second)
            same_file(data_of[real_data]);
        struct stat st;
        if (::stat(data.c_str(), &st) == 0 && !inode_of.emplace(std::make_pair(st.st_dev, st.st_ino), s.name).second)
            same_file(inode_of[std::make_pair(st.st_dev, st.st_ino)]);
        channel ch = parse_meta(read_text(meta.string()), meta.string());
        ch.name = s.name;
        ch.meta_path = meta.string();
        ch.data_path = data.string();
        if (!s.hash.empty() && sha512_file(ch.meta_path) != s.hash)
            fail(ch.meta_path, "does not match its SHA-512 in " + path + " (edited or corrupt)");
        const auto bytes = fs::file_size(ch.data_path, ec);
        if (ec)
            fail(ch.data_path, "is missing (" + ec.message() + ")");
        apply_data_layout(ch, bytes);
        channels.push_back(std::move(ch));
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

void verify_data_hashes(const std::vector<channel>& channels)
{
    for (const channel& ch : channels)
        if (!ch.data_sha512.empty() && sha512_file(ch.data_path) != ch.data_sha512)
            fail(ch.data_path, "does not match core:sha512 in " + ch.meta_path +
                                   " (corrupt or changed since it was recorded)");
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
    json meta = {
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
    if (!ch.data_sha512.empty())
        meta["global"]["core:sha512"] = ch.data_sha512;
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

sha512_stream::sha512_stream() : d_ctx(EVP_MD_CTX_new())
{
    if (!d_ctx || !EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(d_ctx), EVP_sha512(), nullptr))
        throw std::runtime_error("SigMF: OpenSSL's SHA-512 could not be set up");
}

sha512_stream::~sha512_stream() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(d_ctx)); }

void sha512_stream::update(const void* data, std::size_t n)
{
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(d_ctx), data, n);
}

std::string sha512_stream::finish()
{
    EVP_MD_CTX* ctx = static_cast<EVP_MD_CTX*>(d_ctx);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_DigestInit_ex(ctx, EVP_sha512(), nullptr);
    std::ostringstream hex;
    for (unsigned i = 0; i < len; i++)
        hex << std::hex << std::setw(2) << std::setfill('0') << int(md[i]);
    return hex.str();
}

std::string sha512_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot be opened to hash");
    sha512_stream hash;
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        hash.update(buf.data(), std::size_t(in.gcount()));
    }
    if (in.bad())
        fail(path, "cannot be read to hash");
    return hash.finish();
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
    // Each field within its calendar range (timegm would carry month 13 into a year).
    static const int days_in[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    const int y = tm.tm_year;
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
        tm.tm_mday > days_in[tm.tm_mon - 1] || (tm.tm_mon == 2 && !leap && tm.tm_mday > 28) ||
        tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 ||
        tm.tm_sec < 0 || tm.tm_sec > 60) // 60: a leap second
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const char* rest = text.c_str() + consumed;
    fraction = 0;
    if (*rest == '.') {
        // Digits only (strtod would also take ".5e3" or ".inf").
        const char* digits = rest + 1;
        while (*digits >= '0' && *digits <= '9')
            digits++;
        if (digits == rest + 1)
            return false;
        fraction = std::strtod(std::string(rest, digits).c_str(), nullptr); // ".25": 0.25
        rest = digits;
    }
    if (std::string(rest) != "Z")
        return false;
    seconds = std::int64_t(timegm(&tm));
    return true;
}

} // namespace sigmf
} // namespace gpumimo
} // namespace gr
