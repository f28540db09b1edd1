/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recording's NAME.frame.json. What it accepts must make a frame format that can be
 * allocated (payload bits within the documented bound).
 */
#include "fuzz_common.h"

#include "formats/frame_description.h"

#include <gnuradio/gpumimo/core/frame/frame.h>

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text = gpumimo_fuzz::as_text(data, size);
    gpumimo_fuzz::expect_success_or<std::runtime_error>([&] {
        const gr::gpumimo::frame_description d =
            gr::gpumimo::parse_frame_description(text, "fuzz.frame.json");
        const auto f = gr::gpumimo::core::make_frame_format(d.preset, d.streams, d.modulation,
                                                            d.payload_symbols);
        if (f.payload_bits() > (std::size_t(1) << 27) || d.antennas < d.streams)
            std::abort();
    });
    return 0;
}
