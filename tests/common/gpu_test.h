/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture of the GPU tests: skipped, and reported as skipped, where no CUDA device
 * is usable.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_GPU_TEST_H
#define INCLUDED_GPUMIMO_TESTS_GPU_TEST_H

#include <gnuradio/gpumimo/core/backend.h>

#include <gtest/gtest.h>

#include <string>

class Gpu : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (gr::gpumimo::core::cuda_device_count(&why) == 0)
            GTEST_SKIP() << "no usable CUDA device: " << why;
    }
};

#endif
