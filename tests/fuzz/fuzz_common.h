/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every fuzz harness shares: the parsers of outside files may refuse their input
 * only with the exception they document (whose message must be a string that says
 * something); any other exception, a crash, a leak, undefined behaviour or an
 * allocation beyond the input's means is a finding (AddressSanitizer, UBSan and
 * libFuzzer's -rss_limit_mb/-malloc_limit_mb report those).
 */
#ifndef INCLUDED_GPUMIMO_FUZZ_COMMON_H
#define INCLUDED_GPUMIMO_FUZZ_COMMON_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace gpumimo_fuzz {

/*! Runs parse(); an exception of type Refusal with a message is a refusal (fine); any
 *  other exception aborts, so that libFuzzer reports the input. */
template <typename Refusal, typename Parse>
void expect_success_or(Parse&& parse)
{
    try {
        parse();
    } catch (const Refusal& e) {
        if (std::strlen(e.what()) == 0) {
            std::fprintf(stderr, "refused with an empty message\n");
            std::abort();
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "unexpected exception: %s\n", e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "unexpected non-standard exception\n");
        std::abort();
    }
}

inline std::string as_text(const std::uint8_t* data, std::size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

} // namespace gpumimo_fuzz

#endif
