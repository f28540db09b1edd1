/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The 5G NR LDPC codes (38.212 section 5.3.2) from their base graphs and lifting sizes.
 */
#include <gnuradio/gpumimo/core/ldpc/nr_ldpc.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include "nr_base_graph_tables.h"

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// 38.212 Table 5.3.2-1: set i_LS holds the lifting sizes a 2^j <= 384.
constexpr int set_base[8] = { 2, 3, 5, 7, 9, 11, 13, 15 };
constexpr int largest_lifting_size = 384;

struct graph_table {
    const ldpc_detail::nr_base_graph_entry* entries;
    int count;
};

graph_table table_of(int graph)
{
    if (graph == 1)
        return { ldpc_detail::nr_bg1_entries, 316 };
    return { ldpc_detail::nr_bg2_entries, 197 };
}

// The digits of `text` from `pos` up to the first non-digit, as an int; false when
// there are none or too many.
bool read_number(const std::string& text, std::size_t& pos, int& value)
{
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        pos++;
    if (pos == start || pos - start > 4)
        return false;
    value = std::stoi(text.substr(start, pos - start));
    return true;
}

} // namespace

nr_base_graph_shape nr_graph_shape(int graph)
{
    if (graph == 1)
        return { 46, 68, 22 };
    if (graph == 2)
        return { 42, 52, 10 };
    throw std::invalid_argument("nr ldpc: base graph must be 1 or 2, not " +
                                std::to_string(graph));
}

int nr_lifting_set(int z)
{
    for (int set = 0; set < 8; set++)
        for (int size = set_base[set]; size <= largest_lifting_size; size *= 2)
            if (size == z)
                return set;
    return -1;
}

std::vector<int> nr_lifting_sizes()
{
    std::vector<int> sizes;
    for (int z = 2; z <= largest_lifting_size; z++)
        if (nr_lifting_set(z) >= 0)
            sizes.push_back(z);
    return sizes;
}

std::vector<std::vector<int>> nr_base_matrix(int graph, int z, int rows)
{
    const nr_base_graph_shape shape = nr_graph_shape(graph);
    const int set = nr_lifting_set(z);
    if (set < 0)
        throw std::invalid_argument("nr ldpc: " + std::to_string(z) +
                                    " is not a 38.212 lifting size (a 2^j <= 384, a = 2, "
                                    "3, 5, 7, 9, 11, 13 or 15)");
    if (rows == 0)
        rows = shape.rows;
    if (rows < 4 || rows > shape.rows)
        throw std::invalid_argument("nr ldpc: base graph " + std::to_string(graph) +
                                    " keeps 4 to " + std::to_string(shape.rows) +
                                    " rows, not " + std::to_string(rows));
    const int columns = shape.info_columns + rows;
    std::vector<std::vector<int>> base(std::size_t(rows), std::vector<int>(std::size_t(columns), -1));
    const graph_table table = table_of(graph);
    for (int e = 0; e < table.count; e++) {
        const ldpc_detail::nr_base_graph_entry& entry = table.entries[e];
        // Rows kept only reach columns kept: row r's new parity column is
        // info_columns + r (4 core columns for the first four rows).
        if (entry.row < rows)
            base[entry.row][entry.column] = entry.shift[set] % z;
    }
    return base;
}

ldpc_code nr_ldpc_code(int graph, int z, int rows)
{
    const std::vector<std::vector<int>> base = nr_base_matrix(graph, z, rows);
    const int kept = int(base.size());
    const int n = int(base.front().size()) * z;
    const int k = nr_graph_shape(graph).info_columns * z;
    return expand_base_matrix(base, z, z,
                              "NR BG" + std::to_string(graph) + ", Z = " + std::to_string(z) +
                                  ", " + std::to_string(kept) + " rows (n = " +
                                  std::to_string(n) + ", k = " + std::to_string(k) + ")");
}

bool nr_ldpc_code_by_name(const std::string& name, ldpc_code& code)
{
    const std::string prefix = "nr_bg";
    if (name.compare(0, prefix.size(), prefix) != 0)
        return false;
    const std::string form =
        "ldpc code " + quoted_text(name) +
        ": want nr_bg<1 or 2>_z<lifting size> or "
        "nr_bg<1 or 2>_z<lifting size>_rows<4 to 46 (BG1) or 42 (BG2)>";
    std::size_t pos = prefix.size();
    int graph = 0, z = 0, rows = 0;
    if (!read_number(name, pos, graph) || name.compare(pos, 2, "_z") != 0)
        throw std::invalid_argument(form);
    pos += 2;
    if (!read_number(name, pos, z))
        throw std::invalid_argument(form);
    if (pos != name.size()) {
        if (name.compare(pos, 5, "_rows") != 0)
            throw std::invalid_argument(form);
        pos += 5;
        if (!read_number(name, pos, rows) || pos != name.size() || rows == 0)
            throw std::invalid_argument(form);
    }
    code = nr_ldpc_code(graph, z, rows);
    return true;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
