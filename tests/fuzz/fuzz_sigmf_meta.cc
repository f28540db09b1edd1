/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A .sigmf-meta and the layout of its data file: the first 8 bytes of the input are the
 * data file's length, the rest the metadata's text.
 */
#include "fuzz_common.h"

#include "formats/sigmf_files.h"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 8)
        return 0;
    std::uint64_t data_bytes;
    std::memcpy(&data_bytes, data, 8);
    const std::string text = gpumimo_fuzz::as_text(data + 8, size - 8);
    gpumimo_fuzz::expect_success_or<std::runtime_error>([&] {
        gr::gpumimo::sigmf::channel ch = gr::gpumimo::sigmf::parse_meta(text, "fuzz.sigmf-meta");
        ch.meta_path = "fuzz.sigmf-meta";
        gr::gpumimo::sigmf::apply_data_layout(ch, data_bytes);
        // What a player relies on afterwards.
        if (ch.captures.empty() || ch.samples > data_bytes || !(ch.sample_rate > 0))
            std::abort();
        for (std::size_t i = 1; i < ch.captures.size(); i++)
            if (ch.captures[i].sample_start <= ch.captures[i - 1].sample_start ||
                ch.captures[i].sample_start >= ch.samples)
                std::abort();
    });
    return 0;
}
