/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The C++ tools' option values, parsed strictly (docs/reliability.md, "Tools"): the whole
 * text a number of the kind asked for and within its range, else std::invalid_argument
 * naming the option, what it got and what it accepts. std::stoi and friends took "1e18"
 * as 1, "abc" with the message "stoi", -1 as 4294967295 for an unsigned, and a sweep of
 * 1e12 points until memory ran out. Header only, no GNU Radio: the core's tools use it.
 */
#ifndef INCLUDED_GPUMIMO_APPS_CLI_NUMBERS_H
#define INCLUDED_GPUMIMO_APPS_CLI_NUMBERS_H

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpumimo_cli {

/*! The most points a lo:step:hi sweep or a list may have. */
constexpr std::size_t max_points = 1000;

inline std::string range_text(double lo, double hi)
{
    std::ostringstream s;
    s << lo << " to " << hi;
    return s.str();
}

/*! Not empty and not starting with white space (which strtoll and strtod skip). */
inline bool starts_cleanly(const std::string& text)
{
    return !text.empty() && !std::isspace(static_cast<unsigned char>(text[0]));
}

/*! A whole number in [lo, hi], decimal digits with an optional sign, all of the text. */
inline long long whole(const std::string& option, const std::string& text, long long lo, long long hi)
{
    const std::string accepts = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    if (!starts_cleanly(text) || end != begin + text.size() || errno == ERANGE || v < lo || v > hi)
        throw std::invalid_argument(option + ": '" + text + "' is not " + accepts);
    return v;
}

/*! An unsigned whole number in [0, hi] (seeds up to 2^64 - 1): digits only. */
inline std::uint64_t unsigned_whole(const std::string& option, const std::string& text, std::uint64_t hi)
{
    const std::string accepts = "a whole number from 0 to " + std::to_string(hi);
    bool digits = !text.empty();
    for (const char c : text)
        digits = digits && c >= '0' && c <= '9';
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = digits ? std::strtoull(text.c_str(), &end, 10) : 0;
    if (!digits || errno == ERANGE || v > hi)
        throw std::invalid_argument(option + ": '" + text + "' is not " + accepts);
    return std::uint64_t(v);
}

/*! A finite number in [lo, hi], all of the text. */
inline double number(const std::string& option, const std::string& text, double lo, double hi)
{
    const std::string accepts = "a finite number from " + range_text(lo, hi);
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (!starts_cleanly(text) || end != begin + text.size() || !std::isfinite(v) || v < lo || v > hi)
        throw std::invalid_argument(option + ": '" + text + "' is not " + accepts);
    return v;
}

/*! Items of a comma-separated list; an empty item (or list) refused. */
inline std::vector<std::string> names(const std::string& option, const std::string& text)
{
    std::vector<std::string> out;
    std::string::size_type from = 0;
    while (true) {
        const auto comma = text.find(',', from);
        const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (item.empty())
            throw std::invalid_argument(option + ": '" + text + "' is not a comma-separated list of names "
                                        "(an empty name)");
        out.push_back(item);
        if (out.size() > max_points)
            throw std::invalid_argument(option + ": more than " + std::to_string(max_points) + " names");
        if (comma == std::string::npos)
            return out;
        from = comma + 1;
    }
}

/*! Numbers in [lo, hi]: a list a,b,c or a sweep first:step:last (step > 0, last >= first),
 *  at most max_points of them. */
inline std::vector<double> numbers(const std::string& option, const std::string& text, double lo, double hi)
{
    std::vector<double> v;
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
        for (const std::string& item : names(option, text))
            v.push_back(number(option, item, lo, hi));
        return v;
    }
    const auto second = text.find(':', colon + 1);
    if (second == std::string::npos || text.find(':', second + 1) != std::string::npos)
        throw std::invalid_argument(option + ": '" + text + "' is not first:step:last");
    const double first = number(option, text.substr(0, colon), lo, hi);
    const double step = number(option, text.substr(colon + 1, second - colon - 1), 1e-12, hi - lo + 1);
    const double last = number(option, text.substr(second + 1), lo, hi);
    if (last < first)
        throw std::invalid_argument(option + ": '" + text + "': last below first");
    if ((last - first) / step + 1 > double(max_points))
        throw std::invalid_argument(option + ": '" + text + "' is more than " + std::to_string(max_points) +
                                    " points");
    for (std::size_t i = 0;; i++) {
        const double x = first + double(i) * step;
        if (x > last + 1e-9 * step)
            break;
        v.push_back(x);
    }
    return v;
}

/*! f()'s value; a refusal ends the tool with one line "TOOL: reason" and exit code 2
 *  (for tools that read their options outside a try block). */
template <typename Parse>
auto or_exit(const char* tool, Parse parse)
{
    try {
        return parse();
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s: %s\n", tool, e.what());
        std::exit(2);
    }
}

} // namespace gpumimo_cli

#endif
