/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM recordings' container format, and a recording made of two containers: the
 * first 4 bytes of the input say where the received file ends and the sent one begins.
 */
#include "fuzz_common.h"

#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>

#include <algorithm>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 4)
        return 0;
    std::uint32_t split;
    std::memcpy(&split, data, 4);
    const char* bytes = reinterpret_cast<const char*>(data + 4);
    const std::size_t n = size - 4, cut = std::min<std::size_t>(split, n);
    using namespace gr::gpumimo::core;
    gpumimo_fuzz::expect_success_or<std::runtime_error>([&] {
        const auto rx = parse_array_container(std::vector<char>(bytes, bytes + cut), "rx");
        for (const auto& [name, a] : rx) { // what the parser promises
            std::size_t count = 1;
            for (int d : a.dims)
                count *= std::size_t(d);
            if (a.data.size() != count)
                std::abort();
        }
        const auto tx = parse_array_container(std::vector<char>(bytes + cut, bytes + n), "tx");
        const apsm_recording r = apsm_recording_from(rx, tx, "rx", "tx");
        if (r.data_symbols == 0 || r.user_slots.empty() ||
            r.rx_data.size() != r.data_symbols * std::size_t(r.antennas))
            std::abort();
    });
    return 0;
}
