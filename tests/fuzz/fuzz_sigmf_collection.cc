/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A .sigmf-collection's text. Besides not crashing: no stream name it accepts may leave
 * the collection's folder (absolute, a root, "..").
 */
#include "fuzz_common.h"

#include "formats/sigmf_files.h"

#include <filesystem>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text = gpumimo_fuzz::as_text(data, size);
    gpumimo_fuzz::expect_success_or<std::runtime_error>([&] {
        const auto streams =
            gr::gpumimo::sigmf::parse_collection(text, "fuzz.sigmf-collection");
        for (const auto& s : streams) {
            const std::filesystem::path p(s.name);
            if (s.name.empty() || p.is_absolute() || p.has_root_path())
                std::abort();
            for (const auto& part : p)
                if (part == "..")
                    std::abort();
        }
    });
    return 0;
}
