/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small LDPC code for the decoders' tests (test_ldpc.cc, test_gpu_ldpc.cc), whose
 * check degrees are chosen by its shape.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_LDPC_GRID_CODE_H
#define INCLUDED_GPUMIMO_TESTS_LDPC_GRID_CODE_H

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <cstddef>
#include <string>

namespace gpumimo_test {

// A product code: bits on a rows x cols grid, a check per row (degree cols) and per
// column (degree rows).
inline gr::gpumimo::core::ldpc_code grid_code(int rows, int cols)
{
    gr::gpumimo::core::ldpc_code code;
    code.name = "grid " + std::to_string(rows) + "x" + std::to_string(cols);
    code.n = rows * cols;
    code.m = rows + cols;
    code.checks.resize(std::size_t(code.m));
    for (int v = 0; v < code.n; v++) {
        code.checks[std::size_t(v / cols)].push_back(v);
        code.checks[std::size_t(rows + v % cols)].push_back(v);
    }
    gr::gpumimo::core::finish_ldpc_code(code);
    return code;
}

} // namespace gpumimo_test

#endif
