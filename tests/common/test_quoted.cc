/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * core::quoted, how every error message names what it was given: a NUL inside a name
 * once cut the message short (what() is a C string), so "unknown algorithm 'mm" was all
 * that reached the user. Control bytes come out as \xNN, long texts shortened with their
 * length; and the messages of the parsers that quote names carry the whole name.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

using gr::gpumimo::core::quoted_text;
using gr::gpumimo::core::quoted_max_bytes;

TEST(Quoted, ControlBytesAreWrittenOutAndLongTextsShortened)
{
    EXPECT_EQ(quoted_text("mmse"), "'mmse'");
    EXPECT_EQ(quoted_text(std::string("mm\0se", 5)), "'mm\\x00se'");
    EXPECT_EQ(quoted_text("a\nb\x7f\x1f"), "'a\\x0ab\\x7f\\x1f'");
    EXPECT_EQ(quoted_text(""), "''");
    // Every byte value: the printable ones (and UTF-8's high bytes) as they are, the
    // others as four characters; the result never holds a control byte.
    auto rng = gpumimo_test::make_rng(4801);
    std::uniform_int_distribution<int> byte(0, 255);
    std::string text(150, ' ');
    for (char& c : text)
        c = char(byte(rng));
    const std::string q = quoted_text(text);
    std::size_t controls = 0;
    for (const char c : text)
        controls += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
    EXPECT_EQ(q.size(), text.size() + 2 + 3 * controls);
    for (const char c : q)
        ASSERT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << q;
    const std::string long_text(5000, 'x');
    EXPECT_EQ(quoted_text(long_text), "'" + std::string(quoted_max_bytes, 'x') + "'... (5000 bytes)");
}

TEST(Quoted, ParsersNameTheWholeName)
{
    const std::string name("16q\0am", 6);
    try {
        gr::gpumimo::core::parse_modulation(name);
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::strstr(e.what(), "'16q\\x00am'"), nullptr) << e.what();
    }
}
