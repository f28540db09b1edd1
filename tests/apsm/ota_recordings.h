/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The over-the-air APSM recordings for the tests that read them (CPU and GPU): found at
 * GPUMIMO_APSM_OTA_DIR (environment) or where the repository ships them
 * (GPUMIMO_APSM_OTA_DEFAULT_DIR, from tests/CMakeLists.txt); without them a test fails,
 * unless GPUMIMO_ALLOW_MISSING_DATA=1 says to skip.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_APSM_OTA_RECORDINGS_H
#define INCLUDED_GPUMIMO_TESTS_APSM_OTA_RECORDINGS_H

#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace gpumimo_test {

inline std::string apsm_ota_dir()
{
    if (const char* env = std::getenv("GPUMIMO_APSM_OTA_DIR"))
        return env;
    return GPUMIMO_APSM_OTA_DEFAULT_DIR;
}

// Loads a recording: false where it is absent, after a test failure unless
// GPUMIMO_ALLOW_MISSING_DATA=1 (then the caller skips).
inline bool load_apsm_ota(const gr::gpumimo::core::apsm_ota_file& f,
                          gr::gpumimo::core::apsm_recording& out)
{
    if (!std::ifstream(f.rx_path) || !std::ifstream(f.tx_path)) {
        const char* allow = std::getenv("GPUMIMO_ALLOW_MISSING_DATA");
        if (allow && std::string(allow) == "1")
            return false;
        ADD_FAILURE() << "recordings not found under " << apsm_ota_dir()
                      << " (set GPUMIMO_APSM_OTA_DIR, or GPUMIMO_ALLOW_MISSING_DATA=1)";
        return false;
    }
    out = gr::gpumimo::core::load_apsm_recording(f.rx_path, f.tx_path);
    return true;
}

} // namespace gpumimo_test

#endif
