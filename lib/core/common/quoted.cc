/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpumimo/core/quoted.h>

namespace gr {
namespace gpumimo {
namespace core {

std::string quoted_text(const std::string& text)
{
    static const char hex[] = "0123456789abcdef";
    std::string out = "'";
    const std::size_t shown =
        text.size() < quoted_max_bytes ? text.size() : quoted_max_bytes;
    for (std::size_t i = 0; i < shown; i++) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += char(c);
        }
    }
    out += "'";
    if (shown < text.size())
        out += "... (" + std::to_string(text.size()) + " bytes)";
    return out;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
