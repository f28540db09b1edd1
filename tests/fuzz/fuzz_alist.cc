/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An alist file's text. A code it accepts is whole: every check within [0, n), the
 * layers a partition of the checks.
 */
#include "fuzz_common.h"

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <sstream>
#include <stdexcept>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] {
        std::istringstream in(gpumimo_fuzz::as_text(data, size));
        const gr::gpumimo::core::ldpc_code code = gr::gpumimo::core::parse_alist(in, "fuzz");
        std::size_t in_layers = 0;
        for (const auto& layer : code.layers)
            in_layers += layer.size();
        if (int(in_layers) != code.m || int(code.bits.size()) != code.n)
            std::abort();
        const std::vector<std::uint8_t> zeros(std::size_t(code.n), 0);
        if (!code.satisfied(zeros.data())) // the all-zero word is in every linear code
            std::abort();
    });
    return 0;
}
