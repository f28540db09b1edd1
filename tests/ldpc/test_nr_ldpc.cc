/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The 5G NR LDPC codes (core/ldpc/nr_ldpc.h) held to what 38.212 section 5.3.2 says of
 * them: 51 lifting sizes in 8 sets; BG1 316 and BG2 197 nonzero entries; every row
 * past the core adds one parity column of degree one with shift 0; for every lifting
 * size and row count the parity part is invertible (the encoder puts the information
 * bits first, as the standard's systematic codeword has them) and every codeword
 * satisfies H c = 0 checked row by row from the table; names parsed strictly; a rate-1/2
 * code decodes like the 802.16e one of the same length.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/ldpc/nr_ldpc.h>

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using gpumimo_test::random_bits;

namespace {

// H c = 0 straight from the base matrix: block row r, block column b with shift p holds
// c[b z + (i + p) mod z] in check r z + i.
bool base_parity_holds(const std::vector<std::vector<int>>& base, int z,
                       const std::vector<std::uint8_t>& c)
{
    for (std::size_t r = 0; r < base.size(); r++)
        for (int i = 0; i < z; i++) {
            int sum = 0;
            for (std::size_t b = 0; b < base[r].size(); b++)
                if (base[r][b] >= 0)
                    sum += c[b * std::size_t(z) + std::size_t((i + base[r][b]) % z)];
            if (sum % 2)
                return false;
        }
    return true;
}

int nonzeros(const std::vector<std::vector<int>>& base)
{
    int count = 0;
    for (const auto& row : base)
        for (const int p : row)
            count += p >= 0;
    return count;
}

} // namespace

TEST(NrLdpc, TheFiftyOneLiftingSizesInTheirSets)
{
    const std::vector<int> sizes = nr_lifting_sizes();
    ASSERT_EQ(sizes.size(), 51u);
    EXPECT_EQ(sizes.front(), 2);
    EXPECT_EQ(sizes.back(), 384);
    // Table 5.3.2-1: set i_LS = a 2^j for a = 2, 3, 5, ..., 15.
    const int base_of_set[8] = { 2, 3, 5, 7, 9, 11, 13, 15 };
    for (const int z : sizes) {
        const int set = nr_lifting_set(z);
        ASSERT_GE(set, 0) << z;
        int odd = z;
        while (odd % 2 == 0 && odd != 2)
            odd /= 2;
        EXPECT_EQ(odd, base_of_set[set]) << z;
    }
    for (const int z : { -4, 0, 1, 17, 19, 21, 34, 100, 385, 416, 512, 768 })
        EXPECT_EQ(nr_lifting_set(z), -1) << z;
    EXPECT_EQ(nr_lifting_set(384), 1);
    EXPECT_EQ(nr_lifting_set(256), 0);
    EXPECT_EQ(nr_lifting_set(240), 7);
}

TEST(NrLdpc, BaseGraphsHaveTheStandardsShape)
{
    for (const int graph : { 1, 2 }) {
        const nr_base_graph_shape shape = nr_graph_shape(graph);
        for (const int z : nr_lifting_sizes()) {
            const auto base = nr_base_matrix(graph, z);
            ASSERT_EQ(int(base.size()), shape.rows);
            ASSERT_EQ(int(base.front().size()), shape.columns);
            EXPECT_EQ(nonzeros(base), graph == 1 ? 316 : 197) << "BG" << graph << " Z " << z;
            for (const auto& row : base)
                for (const int p : row)
                    ASSERT_LT(p, z);
            // Rows past the core: the row's own parity column, shift 0, in no other row.
            for (int r = 4; r < shape.rows; r++) {
                const int own = shape.info_columns + r;
                EXPECT_EQ(base[std::size_t(r)][std::size_t(own)], 0);
                for (int c = shape.info_columns + 4; c < shape.columns; c++)
                    if (c != own)
                        EXPECT_EQ(base[std::size_t(r)][std::size_t(c)], -1) << r << "," << c;
                for (int o = 0; o < shape.rows; o++)
                    if (o != r)
                        EXPECT_EQ(base[std::size_t(o)][std::size_t(own)], -1);
            }
            // The core rows reach no extension column.
            for (int r = 0; r < 4; r++)
                for (int c = shape.info_columns + 4; c < shape.columns; c++)
                    EXPECT_EQ(base[std::size_t(r)][std::size_t(c)], -1);
        }
    }
}

TEST(NrLdpc, EveryLiftingSizeEncodesSystematicallyAndSatisfiesTheTable)
{
    const std::uint64_t salt = 0x4e52;
    auto rng = make_rng(salt);
    for (const int graph : { 1, 2 }) {
        const nr_base_graph_shape shape = nr_graph_shape(graph);
        for (const int z : nr_lifting_sizes()) {
            // The core alone for every size; more rows (down to the lowest rate) for a
            // spread of sizes, the largest included.
            std::vector<int> row_counts = { 4 };
            if (z % 3 == 0 || z <= 16 || z == 384 || z == 352)
                row_counts.push_back(shape.rows);
            if (z == 64 || z == 240)
                row_counts.push_back(12);
            for (const int rows : row_counts) {
                SCOPED_TRACE("BG" + std::to_string(graph) + " Z " + std::to_string(z) +
                             " rows " + std::to_string(rows));
                const ldpc_code code = nr_ldpc_code(graph, z, rows);
                const auto base = nr_base_matrix(graph, z, rows);
                ASSERT_EQ(code.n, (shape.info_columns + rows) * z);
                ASSERT_EQ(code.m, rows * z);
                const ldpc_encoder enc(code);
                // Parity part invertible: information first, k = info_columns z.
                ASSERT_EQ(enc.k(), shape.info_columns * z);
                for (int i = 0; i < enc.k(); i++)
                    ASSERT_EQ(enc.info_positions()[std::size_t(i)], i);
                for (int t = 0; t < 2; t++) {
                    const auto info = random_bits(rng, std::size_t(enc.k()));
                    std::vector<std::uint8_t> c(std::size_t(code.n), 2);
                    enc.encode(info.data(), c.data());
                    ASSERT_TRUE(base_parity_holds(base, z, c));
                    ASSERT_TRUE(code.satisfied(c.data()));
                    c[std::size_t(rng() % std::uint64_t(code.n))] ^= 1u;
                    ASSERT_FALSE(base_parity_holds(base, z, c));
                }
            }
        }
    }
}

TEST(NrLdpc, FewerRowsAreTheFirstRowsOfTheWholeGraph)
{
    const auto whole = nr_base_matrix(1, 104);
    const auto part = nr_base_matrix(1, 104, 20);
    ASSERT_EQ(part.size(), 20u);
    for (std::size_t r = 0; r < part.size(); r++)
        for (std::size_t c = 0; c < whole[r].size(); c++) {
            if (c < part[r].size())
                EXPECT_EQ(part[r][c], whole[r][c]);
            else
                EXPECT_EQ(whole[r][c], -1) << "a kept row reaches a column left out";
        }
}

TEST(NrLdpc, NamesAreParsedStrictly)
{
    const ldpc_code a = ldpc_code_by_name("nr_bg1_z384");
    EXPECT_EQ(a.n, 68 * 384);
    EXPECT_EQ(a.m, 46 * 384);
    const ldpc_code b = ldpc_code_by_name("nr_bg2_z15_rows8");
    EXPECT_EQ(b.n, 18 * 15);
    EXPECT_EQ(b.m, 8 * 15);
    EXPECT_NE(b.name.find("BG2"), std::string::npos);
    for (const char* bad : { "nr_bg3_z64", "nr_bg0_z64", "nr_bg1_z17", "nr_bg1_z0", "nr_bg1_z",
                             "nr_bg1", "nr_bg", "nr_bg1_z64_rows3", "nr_bg1_z64_rows47",
                             "nr_bg2_z64_rows43", "nr_bg1_z64_rows0", "nr_bg1_z64_rows",
                             "nr_bg1_z64x", "nr_bg1_z64_rows12x", "nr_bg1_z99999999",
                             "nr_bg1_z-64", "nr_bg1_z64_r12" }) {
        EXPECT_THROW(ldpc_code_by_name(bad), std::invalid_argument) << bad;
    }
    // Not of the family: read as the path of an alist file.
    EXPECT_THROW(ldpc_code_by_name("nr-bg1-z64"), std::runtime_error);
}

TEST(NrLdpc, RateHalfCodeDecodesLikeTheWimaxCodeOfItsLength)
{
    // BG1 with 22 rows is rate 1/2; Z = 52 gives n = 2288, beside 802.16e's 2304 (its
    // normalised min-sum: FER 0.0065 at 2 dB, docs/ldpc.md). BPSK over AWGN.
    const ldpc_code code = nr_ldpc_code(1, 52, 22);
    const ldpc_encoder enc(code);
    ldpc_decoder_config cfg;
    cfg.max_iterations = 20;
    cpu_ldpc_decoder dec(code, cfg);
    auto rng = make_rng(0x4e5232);
    const std::size_t n = std::size_t(code.n);
    auto frame_errors = [&](double ebn0_db, int frames) {
        const double sigma2 = 1.0 / (2.0 * 0.5 * std::pow(10.0, ebn0_db / 10.0));
        std::normal_distribution<double> noise(0.0, std::sqrt(sigma2));
        std::vector<float> llr(n);
        std::vector<std::uint8_t> c(n), hard(n);
        int errors = 0;
        for (int f = 0; f < frames; f++) {
            const auto info = random_bits(rng, std::size_t(enc.k()));
            enc.encode(info.data(), c.data());
            for (std::size_t i = 0; i < n; i++)
                llr[i] = float(-2.0 * (1.0 - 2.0 * c[i] + noise(rng)) / sigma2);
            ldpc_outputs out;
            out.bits = hard.data();
            dec.decode(llr.data(), 1, out);
            errors += !std::equal(hard.begin(), hard.begin() + enc.k(), info.begin());
        }
        return errors;
    };
    EXPECT_LE(frame_errors(2.5, 100), 5);   // a good code: (nearly) every frame
    EXPECT_GE(frame_errors(-0.5, 20), 19);  // below capacity: none
}
