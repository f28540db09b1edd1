/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_NR_LDPC_H
#define INCLUDED_GPUMIMO_CORE_NR_LDPC_H

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The 5G NR LDPC codes of 3GPP TS 38.212 section 5.3.2: base graph 1 (46 x 68,
 * 22 information columns) or 2 (42 x 52, 10 information columns), lifted by one of the
 * 51 lifting sizes Z = a 2^j <= 384 (a = 2, 3, 5, 7, 9, 11, 13, 15).
 *
 * Each nonzero base-graph entry becomes the Z x Z identity shifted right by V mod Z
 * (row i of the block has its one in column (i + V mod Z) mod Z), V from the table of
 * Z's set. A code may keep only the first `rows` block rows (4, the core, up to all),
 * and with them the first info_columns + rows block columns: the standard's lower rates
 * add rows, each with one new parity column. Every code bit is a bit of the codeword:
 * 38.212's rate matching (the first 2 Z systematic bits left out, the circular buffer,
 * redundancy versions, filler bits) is not applied here.
 */
struct nr_base_graph_shape {
    int rows = 0;         //!< block rows of the whole graph (46 or 42)
    int columns = 0;      //!< block columns of the whole graph (68 or 52)
    int info_columns = 0; //!< information block columns (22 or 10)
};

/*! BG1 (graph 1) or BG2 (graph 2); std::invalid_argument for another graph. */
nr_base_graph_shape nr_graph_shape(int graph);

/*! 38.212 Table 5.3.2-1: the set index i_LS (0 to 7) of lifting size z, or -1 where z is
 *  not one of the 51 lifting sizes. */
int nr_lifting_set(int z);

/*! The 51 lifting sizes, ascending (2, 3, 4, ..., 384). */
std::vector<int> nr_lifting_sizes();

/*!
 * The base matrix of graph 1 or 2 for lifting size z, its first `rows` block rows (0:
 * all) and first info_columns + rows block columns: -1 a zero block, p >= 0 the identity
 * shifted right by p (V mod z). std::invalid_argument naming a graph, z or rows out of
 * range.
 */
std::vector<std::vector<int>> nr_base_matrix(int graph, int z, int rows = 0);

/*! The code of nr_base_matrix(graph, z, rows): n = (info_columns + rows) z bits,
 *  k = info_columns z information bits. */
ldpc_code nr_ldpc_code(int graph, int z, int rows = 0);

/*!
 * The code a name gives: "nr_bg<graph>_z<Z>" (every row of the graph: rate 22/68 for BG1,
 * 10/52 for BG2) or "nr_bg<graph>_z<Z>_rows<rows>". Returns false
 * (code untouched) for a name of another family; std::invalid_argument naming what is
 * wrong for a name of this family that is malformed or out of range.
 */
bool nr_ldpc_code_by_name(const std::string& name, ldpc_code& code);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
