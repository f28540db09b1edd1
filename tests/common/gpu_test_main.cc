/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * main() of the GPU tests: GTest's, then exit code 77 (ctest's SKIP_RETURN_CODE) where
 * every case passed by skipping for want of a usable device, so that ctest reports the
 * program as skipped only then; a failing case always fails it.
 */
#include <gnuradio/gpumimo/core/backend.h>

#include <gtest/gtest.h>

#include <string>

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    std::string why;
    if (result == 0 && gr::gpumimo::core::cuda_device_count(&why) == 0)
        return 77;
    return result;
}
