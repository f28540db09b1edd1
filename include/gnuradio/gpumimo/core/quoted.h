/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_QUOTED_H
#define INCLUDED_GPUMIMO_CORE_QUOTED_H

#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! How an error message names what it was given (a name, a path, a field's text): in
 *  single quotes, each control byte (below 0x20, and 0x7f) written as \xNN so that a NUL
 *  cannot cut the message short (what() is a C string) nor a newline forge a log line,
 *  and at most quoted_max_bytes bytes of it, then "..." and its length. */
std::string quoted_text(const std::string& text);

constexpr std::size_t quoted_max_bytes = 200;

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
