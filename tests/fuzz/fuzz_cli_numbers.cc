/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The C++ tools' option values (apps/common/cli_numbers.h): any text is taken within the
 * range asked for or refused with a message; a sweep or list never holds more than
 * max_points values, each finite and in range.
 */
#include "common/cli_numbers.h"
#include "fuzz_common.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace cli = gpumimo_cli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text = gpumimo_fuzz::as_text(data, size);
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] {
        const long long v = cli::whole("--frames", text, -5, 1000000);
        if (v < -5 || v > 1000000)
            std::abort();
    });
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] { cli::unsigned_whole("--seed", text, UINT64_MAX); });
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] {
        const double v = cli::number("--cfo", text, -1e3, 1e3);
        if (!std::isfinite(v) || v < -1e3 || v > 1e3)
            std::abort();
    });
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] {
        const std::vector<double> v = cli::numbers("--snr", text, -100, 200);
        if (v.empty() || v.size() > cli::max_points)
            std::abort();
        for (const double x : v)
            if (!std::isfinite(x) || x < -100 || x > 200 + 1e-6)
                std::abort();
    });
    gpumimo_fuzz::expect_success_or<std::invalid_argument>([&] {
        for (const std::string& n : cli::names("--detectors", text))
            if (n.empty())
                std::abort();
    });
    return 0;
}
