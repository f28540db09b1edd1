/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LDPC codes: alist files, quasi-cyclic base matrices, the layers of a layered decoder.
 */
#include <gnuradio/gpumimo/core/file_bytes.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/nr_ldpc.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include "ldpc/ldpc_internal.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

std::size_t ldpc_code::edges() const
{
    std::size_t e = 0;
    for (const auto& c : checks)
        e += c.size();
    return e;
}

int ldpc_code::max_check_degree() const
{
    std::size_t d = 0;
    for (const auto& c : checks)
        d = std::max(d, c.size());
    return int(d);
}

bool ldpc_code::satisfied(const std::uint8_t* hard) const
{
    for (const auto& c : checks) {
        unsigned parity = 0;
        for (const int v : c)
            parity ^= hard[v] & 1u;
        if (parity)
            return false;
    }
    return true;
}

void finish_ldpc_code(ldpc_code& code)
{
    if (code.n < 2 || code.m < 1 || int(code.checks.size()) != code.m)
        throw std::invalid_argument("ldpc_code " + quoted_text(code.name) +
                                    ": needs n >= 2 bits and m >= 1 checks");
    code.bits.assign(std::size_t(code.n), {});
    for (int c = 0; c < code.m; c++) {
        auto& row = code.checks[std::size_t(c)];
        std::sort(row.begin(), row.end());
        if (row.size() < 2 || std::adjacent_find(row.begin(), row.end()) != row.end() ||
            row.front() < 0 || row.back() >= code.n)
            throw std::invalid_argument(
                "ldpc_code " + quoted_text(code.name) + ": check " + std::to_string(c) +
                " must hold at least two distinct bits in [0, n)");
        for (const int v : row)
            code.bits[std::size_t(v)].push_back(c);
    }
    for (int v = 0; v < code.n; v++)
        if (code.bits[std::size_t(v)].empty())
            throw std::invalid_argument("ldpc_code " + quoted_text(code.name) + ": bit " +
                                        std::to_string(v) + " is in no check");
    code.layers = ldpc_detail::decoder_layers(code);
}

namespace {

// The next integer of an alist, or an error naming what was being read.
int next_int(std::istream& in, const char* what)
{
    long long v;
    if (!(in >> v))
        throw std::invalid_argument(std::string("alist: truncated or not a number while "
                                                "reading ") +
                                    what);
    if (v < -1 || v > (1LL << 30))
        throw std::invalid_argument(std::string("alist: value out of range in ") + what);
    return int(v);
}

} // namespace

ldpc_code parse_alist(std::istream& in, const std::string& name)
{
    ldpc_code code;
    code.name = name;
    code.n = next_int(in, "n");
    code.m = next_int(in, "m");
    if (code.n < 2 || code.m < 1)
        throw std::invalid_argument("alist: needs n >= 2 and m >= 1");
    // Bounded before anything is sized by them: a 17-byte header must not allocate
    // gigabytes.
    if (code.n > max_alist_bits || code.m > code.n)
        throw std::invalid_argument("alist: n = " + std::to_string(code.n) + ", m = " +
                                    std::to_string(code.m) + " out of range (n <= " +
                                    std::to_string(max_alist_bits) + ", m <= n)");
    const std::streampos here = in.tellg();
    if (here != std::streampos(-1) && in.seekg(0, std::ios::end)) {
        const std::streamoff left = in.tellg() - here;
        in.seekg(here);
        // Each of the n + m weights takes at least two characters ("1 ").
        if (left < 2 * (std::streamoff(code.n) + code.m))
            throw std::invalid_argument("alist: declares n = " + std::to_string(code.n) +
                                        " and m = " + std::to_string(code.m) +
                                        " but holds only " + std::to_string(left) +
                                        " more bytes");
    }
    in.clear();
    const int max_col = next_int(in, "the largest column weight");
    const int max_row = next_int(in, "the largest row weight");
    if (max_col < 1 || max_row < 2 || max_col > code.m || max_row > code.n)
        throw std::invalid_argument("alist: largest weights out of range");
    std::vector<int> col_w(std::size_t(code.n)), row_w(std::size_t(code.m));
    for (auto& w : col_w)
        if ((w = next_int(in, "the column weights")) < 1 || w > max_col)
            throw std::invalid_argument("alist: a column weight is out of range");
    for (auto& w : row_w)
        if ((w = next_int(in, "the row weights")) < 2 || w > max_row)
            throw std::invalid_argument("alist: a row weight is out of range");
    // Column lists: max_col entries a line, zeros padding (some writers leave them out;
    // the line structure tells): read line by line.
    std::string line;
    std::getline(in, line); // the rest of the row-weight line
    auto read_lists = [&](int count, const std::vector<int>& weights, int limit,
                          const char* what) {
        std::vector<std::vector<int>> lists(static_cast<std::size_t>(count));
        for (int i = 0; i < count; i++) {
            do {
                if (!std::getline(in, line))
                    throw std::invalid_argument(std::string("alist: truncated in the ") +
                                                what);
            } while (line.find_first_not_of(" \t\r") == std::string::npos);
            std::istringstream s(line);
            long long v;
            while (s >> v) {
                if (v == 0)
                    continue;
                if (v < 1 || v > limit)
                    throw std::invalid_argument(std::string("alist: an index out of range "
                                                            "in the ") +
                                                what);
                lists[std::size_t(i)].push_back(int(v - 1));
            }
            if (!s.eof())
                throw std::invalid_argument(std::string("alist: not a number in the ") + what);
            if (int(lists[std::size_t(i)].size()) != weights[std::size_t(i)])
                throw std::invalid_argument(std::string("alist: a list's length differs "
                                                        "from its weight in the ") +
                                            what);
        }
        return lists;
    };
    const auto cols = read_lists(code.n, col_w, code.m, "column lists");
    code.checks = read_lists(code.m, row_w, code.n, "row lists");
    finish_ldpc_code(code);
    for (int v = 0; v < code.n; v++) {
        std::vector<int> c = cols[std::size_t(v)];
        std::sort(c.begin(), c.end());
        if (c != code.bits[std::size_t(v)])
            throw std::invalid_argument("alist: the column lists disagree with the row "
                                        "lists (column " +
                                        std::to_string(v + 1) + ")");
    }
    return code;
}

ldpc_code load_alist(const std::string& path)
{
    // A regular file; max_alist_bits bits with every check's and bit's list fit well
    // within 256 MB of text.
    const std::vector<char> bytes = read_regular_file(path, 256ull << 20);
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::string name = path.substr(path.find_last_of('/') + 1);
    return parse_alist(in, name);
}

std::vector<std::vector<int>> parse_base_matrix(std::istream& in)
{
    std::vector<std::vector<int>> base;
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#')
            continue;
        std::istringstream s(line);
        std::vector<int> row;
        long long v;
        while (s >> v) {
            if (v < -1 || v > (1 << 20))
                throw std::invalid_argument("base matrix: a shift out of range");
            row.push_back(int(v));
        }
        if (!s.eof())
            throw std::invalid_argument("base matrix: not a number in " + quoted_text(line));
        if (!base.empty() && row.size() != base.front().size())
            throw std::invalid_argument("base matrix: rows of different lengths");
        base.push_back(std::move(row));
    }
    if (base.empty() || base.front().size() < 2)
        throw std::invalid_argument("base matrix: no rows");
    return base;
}

ldpc_code expand_base_matrix(const std::vector<std::vector<int>>& base,
                             int z0,
                             int z,
                             const std::string& name)
{
    if (base.empty() || z0 < 1 || z < 1 || z > z0)
        throw std::invalid_argument("expand_base_matrix: needs rows and 1 <= z <= z0");
    ldpc_code code;
    code.name = name;
    const int cols = int(base.front().size());
    code.n = cols * z;
    code.m = int(base.size()) * z;
    code.checks.assign(std::size_t(code.m), {});
    for (std::size_t r = 0; r < base.size(); r++) {
        if (int(base[r].size()) != cols)
            throw std::invalid_argument("expand_base_matrix: rows of different lengths");
        for (int b = 0; b < cols; b++) {
            const int p = base[r][std::size_t(b)];
            if (p < 0)
                continue;
            const int shift = int((long long)p * z / z0);
            for (int i = 0; i < z; i++)
                code.checks[r * std::size_t(z) + std::size_t(i)].push_back(b * z + (i + shift) % z);
        }
    }
    finish_ldpc_code(code);
    return code;
}

const std::vector<std::vector<int>>& wimax_rate_half_base()
{
    // IEEE 802.16e-2005, table of the rate-1/2 code: -1 a zero block, p the identity
    // shifted by p (for z = 96).
    static const std::vector<std::vector<int>> base = {
        { -1, 94, 73, -1, -1, -1, -1, -1, 55, 83, -1, -1, 7, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
        { -1, 27, -1, -1, -1, 22, 79, 9, -1, -1, -1, 12, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1 },
        { -1, -1, -1, 24, 22, 81, -1, 33, -1, -1, -1, 0, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1 },
        { 61, -1, 47, -1, -1, -1, -1, -1, 65, 25, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1 },
        { -1, -1, 39, -1, -1, -1, 84, -1, -1, 41, 72, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1 },
        { -1, -1, -1, -1, 46, 40, -1, 82, -1, -1, -1, 79, 0, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1 },
        { -1, -1, 95, 53, -1, -1, -1, -1, -1, 14, 18, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1 },
        { -1, 11, 73, -1, -1, -1, 2, -1, -1, 47, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1 },
        { 12, -1, -1, -1, 83, 24, -1, 43, -1, -1, -1, 51, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1 },
        { -1, -1, -1, -1, -1, 94, -1, 59, -1, -1, 70, 72, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1 },
        { -1, -1, 7, 65, -1, -1, -1, -1, 39, 49, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0 },
        { 43, -1, -1, -1, -1, 66, -1, 41, -1, -1, -1, 26, 7, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0 },
    };
    return base;
}

ldpc_code wimax_rate_half_code(int n)
{
    if (n < 576 || n > 2304 || n % 96 != 0)
        throw std::invalid_argument("wimax_rate_half_code: n must be 576 to 2304 in steps "
                                    "of 96, not " +
                                    std::to_string(n));
    return expand_base_matrix(wimax_rate_half_base(), 96, n / 24,
                              "802.16e rate 1/2, n = " + std::to_string(n));
}

bool is_builtin_ldpc_code_name(const std::string& name)
{
    return name.compare(0, 6, "wimax_") == 0 || name.compare(0, 5, "nr_bg") == 0;
}

ldpc_code ldpc_code_by_name(const std::string& name)
{
    const std::string prefix = "wimax_";
    if (name.compare(0, prefix.size(), prefix) == 0) {
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.size() > 5 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument(
                "ldpc code " + quoted_text(name) +
                ": want wimax_<n> (n = 576 to 2304 in steps of 96) "
                "or the path of an alist file");
        return wimax_rate_half_code(std::stoi(digits));
    }
    ldpc_code nr;
    if (nr_ldpc_code_by_name(name, nr))
        return nr;
    return load_alist(name);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
