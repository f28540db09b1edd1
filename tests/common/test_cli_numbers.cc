/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The C++ tools' strict option values (apps/common/cli_numbers.h) on what users and a
 * hostile caller typed: each bad value refused naming the option and what it accepts
 * (std::stoi took "1e18" as 1 and "abc" with the message "stoi", a sweep of 1e12 points
 * ran out of memory, -1 became 4294967295 threads), good ones taken whole.
 */
#include "common/cli_numbers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cli = gpumimo_cli;

namespace {

// The refusal's message names the option and says what it accepts.
::testing::AssertionResult refused(const std::function<void()>& parse, const std::string& option,
                                   const std::string& accepts)
{
    try {
        parse();
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        if (m.rfind(option + ":", 0) == 0 && m.find(accepts) != std::string::npos)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "message '" << m << "'";
    }
    return ::testing::AssertionFailure() << "taken";
}

} // namespace

TEST(CliNumbers, WholeNumbersAreWholeAndInRange)
{
    EXPECT_EQ(cli::whole("--frames", "100", 1, 1000), 100);
    EXPECT_EQ(cli::whole("--gap", "-3", -5, 5), -3);
    for (const char* bad : { "1e18", "abc", "12x", "", " 5", "5 ", "1.0", "0", "1001", "99999999999999999999" })
        EXPECT_TRUE(refused([&] { cli::whole("--frames", bad, 1, 1000); }, "--frames",
                            "a whole number from 1 to 1000"))
            << bad;
    EXPECT_TRUE(refused([] { cli::whole("--threads", "-1", 0, 1024); }, "--threads", "from 0 to 1024"));
}

TEST(CliNumbers, SeedsTakeEverySixtyFourBitValueAndNothingElse)
{
    EXPECT_EQ(cli::unsigned_whole("--seed", "18446744073709551615", UINT64_MAX), UINT64_MAX);
    EXPECT_EQ(cli::unsigned_whole("--seed", "0", UINT64_MAX), 0u);
    for (const char* bad : { "1e99", "-1", "+1", "18446744073709551616", "", "0x10" })
        EXPECT_TRUE(refused([&] { cli::unsigned_whole("--seed", bad, UINT64_MAX); }, "--seed", "a whole number"))
            << bad;
}

TEST(CliNumbers, NumbersAreFiniteAndInRange)
{
    EXPECT_DOUBLE_EQ(cli::number("--cfo", "0.15", -1, 1), 0.15);
    EXPECT_DOUBLE_EQ(cli::number("--delay-spread", "300e-9", 0, 1e-3), 300e-9);
    for (const char* bad : { "inf", "nan", "-inf", "1e999", "0.1x", "", "2" })
        EXPECT_TRUE(refused([&] { cli::number("--cfo", bad, -1, 1); }, "--cfo", "a finite number")) << bad;
}

TEST(CliNumbers, SweepsAndListsAreBounded)
{
    EXPECT_EQ(cli::numbers("--snr", "8:2:14", -100, 200), (std::vector<double>{ 8, 10, 12, 14 }));
    EXPECT_EQ(cli::numbers("--snr", "14,20,25", -100, 200), (std::vector<double>{ 14, 20, 25 }));
    EXPECT_EQ(cli::numbers("--snr", "5:1:5", -100, 200), (std::vector<double>{ 5 }));
    EXPECT_EQ(cli::numbers("--snr", "0:0.1:0.3", -100, 200).size(), 4u); // rounding: the last kept
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "0:1e-12:1", -100, 200); }, "--snr", "more than 1000 points"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "nan:1:5", -100, 200); }, "--snr", "a finite number"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "5:1:0", -100, 200); }, "--snr", "last below first"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "0:0:5", -100, 200); }, "--snr", "a finite number"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "1:2", -100, 200); }, "--snr", "first:step:last"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "1:2:3:4", -100, 200); }, "--snr", "first:step:last"));
    EXPECT_TRUE(refused([] { cli::numbers("--snr", "1,,2", -100, 200); }, "--snr", "an empty name"));
    EXPECT_TRUE(refused([] { cli::names("--detectors", ""); }, "--detectors", "an empty name"));
    EXPECT_EQ(cli::names("--detectors", "mmse,kbest:16"), (std::vector<std::string>{ "mmse", "kbest:16" }));
}
