/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FILE_BYTES_H
#define INCLUDED_GPUMIMO_CORE_FILE_BYTES_H

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The whole of the regular file at `path`, read once, for every file the module
 * reads whole (recordings' containers, reference payloads, pilot files, metadata, frame
 * descriptions, alist codes; docs/reliability.md "Files").
 *
 * std::runtime_error naming the path ("PATH: ..."), before anything is allocated or
 * read, when it is not a regular file (a device such as /dev/zero, a FIFO, which is
 * opened without blocking, a folder), cannot be opened, or holds more than max_bytes;
 * and when it cannot be read in full (it shrank while being read).
 */
std::vector<char> read_regular_file(const std::string& path, std::uint64_t max_bytes);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
