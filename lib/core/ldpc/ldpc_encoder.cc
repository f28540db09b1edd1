/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Systematic LDPC encoding of any parity-check matrix: reduced row echelon form over
 * GF(2), pivots taken from the right, so each pivot row gives one parity bit as the sum
 * of information bits.
 */
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
constexpr std::size_t word_bits = 64;

bool test_bit(const std::uint64_t* row, std::size_t i)
{
    return (row[i / word_bits] >> (i % word_bits)) & 1u;
}
} // namespace

ldpc_encoder::ldpc_encoder(const ldpc_code& code) : d_n(code.n)
{
    const std::size_t n = std::size_t(code.n), m = std::size_t(code.m);
    const std::size_t words = (n + word_bits - 1) / word_bits;
    // H dense, a row of n bits per check.
    std::vector<std::uint64_t> h(m * words, 0);
    for (std::size_t c = 0; c < m; c++)
        for (const int v : code.checks[c])
            h[c * words + std::size_t(v) / word_bits] ^= std::uint64_t(1) << (std::size_t(v) % word_bits);

    // Gauss-Jordan elimination, columns from the right: the pivot columns become the
    // parity positions.
    std::vector<char> is_pivot(n, 0);
    std::vector<int> pivot_col;
    std::size_t rank = 0;
    for (std::size_t col = n; col-- > 0 && rank < m;) {
        std::size_t r = rank;
        while (r < m && !test_bit(&h[r * words], col))
            r++;
        if (r == m)
            continue; // dependent on the pivot columns already taken
        if (r != rank)
            std::swap_ranges(h.begin() + std::ptrdiff_t(r * words),
                             h.begin() + std::ptrdiff_t((r + 1) * words),
                             h.begin() + std::ptrdiff_t(rank * words));
        const std::uint64_t* p = &h[rank * words];
        for (std::size_t o = 0; o < m; o++)
            if (o != rank && test_bit(&h[o * words], col))
                for (std::size_t w = 0; w < words; w++)
                    h[o * words + w] ^= p[w];
        is_pivot[col] = 1;
        pivot_col.push_back(int(col));
        rank++;
    }
    for (std::size_t v = 0; v < n; v++)
        if (!is_pivot[v])
            d_info.push_back(int(v));
    if (d_info.empty())
        throw std::invalid_argument("ldpc_encoder: H has full column rank: no information "
                                    "bits");
    // Pivot row r: c[pivot_col[r]] = sum over information positions i with H[r][i] = 1
    // of c[i], recorded by information index.
    d_words = (d_info.size() + word_bits - 1) / word_bits;
    d_parity = pivot_col;
    d_parity_rows.assign(rank * d_words, 0);
    for (std::size_t r = 0; r < rank; r++)
        for (std::size_t i = 0; i < d_info.size(); i++)
            if (test_bit(&h[r * words], std::size_t(d_info[i])))
                d_parity_rows[r * d_words + i / word_bits] |= std::uint64_t(1) << (i % word_bits);
}

void ldpc_encoder::encode(const std::uint8_t* info, std::uint8_t* codeword) const
{
    std::vector<std::uint64_t> packed(d_words, 0);
    for (std::size_t i = 0; i < d_info.size(); i++)
        if (info[i] > 1)
            throw std::invalid_argument("ldpc_encoder: information bit " + std::to_string(i) +
                                        " is " + std::to_string(info[i]) + ", not 0 or 1");
    for (std::size_t i = 0; i < d_info.size(); i++) {
        const std::uint8_t b = info[i];
        packed[i / word_bits] |= std::uint64_t(b) << (i % word_bits);
        codeword[d_info[i]] = b;
    }
    for (std::size_t r = 0; r < d_parity.size(); r++) {
        std::uint64_t acc = 0;
        for (std::size_t w = 0; w < d_words; w++)
            acc ^= d_parity_rows[r * d_words + w] & packed[w];
        codeword[d_parity[r]] = std::uint8_t(__builtin_parityll(acc));
    }
}

void ldpc_encoder::extract(const std::uint8_t* codeword, std::uint8_t* info) const
{
    for (std::size_t i = 0; i < d_info.size(); i++)
        info[i] = codeword[d_info[i]] & 1u;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
