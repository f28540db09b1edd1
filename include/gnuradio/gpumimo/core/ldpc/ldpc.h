/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LDPC_H
#define INCLUDED_GPUMIMO_CORE_LDPC_H

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A binary LDPC code given by its sparse parity-check matrix H (m checks by n
 * code bits): codewords c are the vectors with H c = 0 (mod 2).
 */
struct ldpc_code {
    std::string name;
    int n = 0; //!< code bits (columns of H)
    int m = 0; //!< checks (rows of H), possibly linearly dependent
    /*! The bits of each check, ascending: the rows of H. */
    std::vector<std::vector<int>> checks;
    /*! The checks of each bit, ascending: the columns of H (from checks). */
    std::vector<std::vector<int>> bits;
    /*!
     * The checks in layers, in the order a layered decoder visits them: no two checks of
     * a layer share a bit, so the checks of a layer may be updated in any order or all at
     * once with the same result. Quasi-cyclic codes: whole block rows, those sharing no
     * block column merged so that layers are few and equally wide (the 802.16e rate-1/2
     * codes: 6 layers of two block rows); other codes: first fit over the checks in
     * order (lib/core/ldpc/ldpc_layers.cc).
     */
    std::vector<std::vector<int>> layers;

    /*! Ones in H (edges of the Tanner graph). */
    std::size_t edges() const;
    int max_check_degree() const;
    /*! Syndrome of hard decisions (0 or 1 each, n of them): true when every check is
     *  satisfied. */
    bool satisfied(const std::uint8_t* hard) const;
};

/*!
 * Builds `bits` and `layers` from `checks` after checking them: every check holds at
 * least two distinct bits in [0, n), every bit is in at least one check.
 * std::invalid_argument naming the first fault otherwise.
 */
void finish_ldpc_code(ldpc_code& code);

/*!
 * An LDPC code from alist text (MacKay's format, as gr-fec and IT++ read it): "n m",
 * the largest column and row weights, the n column weights, the m row weights, then n
 * lines of 1-based row indices per column and m lines of 1-based column indices per row
 * (zeros pad short lines and are skipped). The row lists define the code; the column
 * lists must agree with them. std::invalid_argument naming what is wrong for text that
 * is not such a file (truncated, out-of-range or inconsistent indices). The sizes a file
 * declares are checked before anything is allocated for them: n at most
 * max_alist_bits, m at most n, and (where the stream can tell its length) n + m weights
 * fitting in what is left of it.
 */
constexpr int max_alist_bits = 1 << 20;
ldpc_code parse_alist(std::istream& in, const std::string& name = "alist");
/*! parse_alist of the file at `path`; std::runtime_error when it cannot be read. */
ldpc_code load_alist(const std::string& path);

/*!
 * A quasi-cyclic base matrix as text: rows of integers, -1 a z x z zero block, p >= 0
 * the z x z identity circularly shifted right by p (row i of the block has its one in
 * column (i + p) mod z); lines starting with '#' are comments.
 */
std::vector<std::vector<int>> parse_base_matrix(std::istream& in);

/*!
 * The code of a base matrix whose shifts are given for expansion factor z0, expanded by
 * z <= z0 with each shift p >= 0 scaled to floor(p * z / z0) (IEEE 802.16e's rule for
 * its rate-1/2 code: examples/codes/ldpc/wimax_r12_base.txt with z0 = 96 gives n =
 * 24 z, z = 24, 28, ..., 96). Checks in block-row order.
 */
ldpc_code expand_base_matrix(const std::vector<std::vector<int>>& base,
                             int z0,
                             int z,
                             const std::string& name = "qc");

/*! IEEE 802.16e-2005's rate-1/2 base matrix (12 x 24, shifts for z0 = 96), as in
 *  examples/codes/ldpc/wimax_r12_base.txt (the tests compare them). */
const std::vector<std::vector<int>>& wimax_rate_half_base();

/*! IEEE 802.16e's rate-1/2 code of length n = 24 z, z = 24, 28, ..., 96 (n = 576 to
 *  2304 in steps of 96): its base matrix expanded by z. std::invalid_argument for
 *  another n. */
ldpc_code wimax_rate_half_code(int n = 2304);

/*! A code by name, as the blocks take it: "wimax_<n>" the 802.16e rate-1/2 code of
 *  length n (wimax_rate_half_code), "nr_bg<1|2>_z<Z>[_rows<r>]" a 5G NR code
 *  (nr_ldpc.h), anything else the path of an alist file (load_alist). std::invalid_argument or std::runtime_error naming what is wrong. */
ldpc_code ldpc_code_by_name(const std::string& name);

/*! Whether a name is of a built-in family ("wimax_..." or "nr_bg..."), not a file path:
 *  what a recording's description may name, since it must not make us read files. */
bool is_builtin_ldpc_code_name(const std::string& name);

/*!
 * \brief Systematic encoder of any ldpc_code, by Gaussian elimination of H over GF(2)
 * (once, at construction).
 *
 * The elimination takes its pivots from the rightmost columns it can, so for a code
 * whose last m columns are independent (802.16e: the dual-diagonal parity part) the
 * codeword is [information bits | parity bits]; in general the information bits sit at
 * info_positions() and the parity bits at the pivot columns. k = n - rank(H).
 */
class ldpc_encoder
{
public:
    explicit ldpc_encoder(const ldpc_code& code);

    int n() const { return d_n; }
    int k() const { return int(d_info.size()); }
    /*! Codeword positions of the information bits, ascending. */
    const std::vector<int>& info_positions() const { return d_info; }
    /*! info: k bits (0 or 1); codeword: n bits with H codeword = 0. */
    void encode(const std::uint8_t* info, std::uint8_t* codeword) const;
    /*! The information bits of a codeword (or of hard decisions): k of them. */
    void extract(const std::uint8_t* codeword, std::uint8_t* info) const;

    /*! The encoding rule, for encoders elsewhere (the GPU link simulator): parity bit r
     *  goes to codeword position parity_positions()[r] and is the parity of
     *  parity_rows()[r * row_words() + w] & info_word(w) over w, info_word(w) holding
     *  information bits 64 w .. 64 w + 63, bit i at bit i % 64. */
    const std::vector<int>& parity_positions() const { return d_parity; }
    std::size_t row_words() const { return d_words; }
    const std::vector<std::uint64_t>& parity_rows() const { return d_parity_rows; }

private:
    int d_n = 0;
    std::size_t d_words = 0;        //!< 64-bit words per row of d_parity_rows
    std::vector<int> d_info;        //!< information positions
    std::vector<int> d_parity;      //!< parity position of each row of d_parity_rows
    std::vector<std::uint64_t> d_parity_rows; //!< [rank][words]: which information bits
                                              //!< (by their index) a parity bit sums
};

/*! The float decoders' saturation (min_sum, sum_product, and min_sum_half's input):
 *  channel LLRs enter clamped to +-this (an int8 q / scale too, however small the scale)
 *  and min_sum's check messages are clamped to it, so that app, the channel LLR plus
 *  the bit's messages, stays within (1 + degree) x 2^64 <= 2^84 for any alist's degree
 *  (max_alist_bits), below llr_limit (core/limits.h): nothing overflows to Inf and then
 *  NaN, however large the input or however many the iterations (min-sum's values
 *  otherwise grow geometrically while its checks agree, 1.5 x an iteration on a degree-3
 *  code without early termination). Clamping the messages, not app - R, keeps app the
 *  sum of its parts (clamping app - R dropped other checks' messages from it, and a
 *  codeword decoded for 500 iterations then came apart). Sum-product's messages are at
 *  most phi(8e-18), about 41. */
constexpr float ldpc_llr_saturation = 18446744073709551616.0f; // 2^64

/*! min_sum_half's saturation: a check's incoming values t = app - R are clamped to
 *  +-this, so that app = t + R stays within 2 x 16384 and app - R within 3 x 16384,
 *  below 65504, the largest half: nothing overflows. Channel LLRs enter scaled by a
 *  power of two per codeword, the largest in [128, 256) (ldpc_internal.h). */
constexpr float ldpc_half_saturation = 16384.0f;

enum class ldpc_algorithm {
    min_sum,     //!< layered, normalised and/or offset min-sum
    /*! min_sum in IEEE half precision (binary16, round to nearest even after every
     *  operation; each codeword scaled by a power of two, incoming values saturated at
     *  +-ldpc_half_saturation): the GPU decodes two codewords per instruction this way;
     *  what it costs against min_sum: docs/ldpc.md. */
    min_sum_half,
    sum_product, //!< layered sum-product (the phi = -ln tanh(x/2) rule, exact)
};

/*! "min_sum", "min_sum_half" or "sum_product"; std::invalid_argument otherwise. */
ldpc_algorithm ldpc_algorithm_from_string(const std::string& name);
const char* to_string(ldpc_algorithm a);

struct ldpc_decoder_config {
    ldpc_algorithm algorithm = ldpc_algorithm::min_sum;
    int max_iterations = 10;
    /*! Stop a codeword after the first iteration that ends with every check satisfied. */
    bool early_termination = true;
    /*! Min-sum: a check message's magnitude is max(min - offset, 0) * normalisation
     *  (1 and 0: plain min-sum; 0.75 and 0: normalised; 1 and 0.15..0.5: offset). */
    float normalisation = 0.75f;
    float offset = 0.0f;

    /*! std::invalid_argument naming the first field out of range. */
    void validate() const;
};

/*! Where a decode writes; any pointer may be null (not wanted). Each is frames x n
 *  (app, bits) or frames (iterations, satisfied). */
struct ldpc_outputs {
    float* app = nullptr;            //!< a-posteriori LLRs, the input's convention
    std::uint8_t* bits = nullptr;    //!< hard decisions: 1 where app > 0
    int* iterations = nullptr;       //!< iterations run
    std::uint8_t* satisfied = nullptr; //!< 1 when decoded: every check holds, no app exactly 0
};

/*!
 * \brief The CPU reference LDPC decoder: layered min-sum or sum-product, codeword after
 * codeword.
 *
 * LLRs in the core's convention, LLR = ln P(b = 1) / P(b = 0) (positive means 1), as
 * the detectors give them; int8 LLRs are q / scale. Each codeword starts from its
 * channel LLRs with zero check messages; an iteration visits the code's layers in order,
 * and in each check of a layer takes t = app - R for its bits, computes the new message
 * R' for each bit from the other bits' t, and sets app = t + R'. Float arithmetic in a
 * fixed order (the CUDA decoder repeats min-sum's bit for bit). Non-finite input LLRs
 * are taken as 0 (erasures).
 */
class cpu_ldpc_decoder
{
public:
    cpu_ldpc_decoder(const ldpc_code& code, const ldpc_decoder_config& config);

    const ldpc_code& code() const { return d_code; }
    const ldpc_decoder_config& config() const { return d_config; }

    /*! frames codewords of n LLRs each. Returns how many decoded: their decisions satisfy
     *  every check and no a-posteriori LLR is exactly 0 (a bit not decided; so a codeword
     *  of zero LLRs is not decoded). */
    std::size_t decode(const float* llr, std::size_t frames, const ldpc_outputs& out);
    std::size_t
    decode(const std::int8_t* llr, float scale, std::size_t frames, const ldpc_outputs& out);

private:
    std::size_t decode_one(const ldpc_outputs& out, std::size_t frame);
    std::size_t decode_one_half(const ldpc_outputs& out, std::size_t frame);
    template <typename Update>
    std::pair<int, bool> iterate(Update update); //!< iterations run, syndrome satisfied
    std::size_t write_outputs(const ldpc_outputs& out, std::size_t frame, int iterations, bool ok);

    const ldpc_code d_code;
    const ldpc_decoder_config d_config;
    std::vector<int> d_edge_offset; //!< check c's messages at [offset[c], offset[c + 1])
    std::vector<float> d_app, d_msg, d_t, d_phi;
    std::vector<std::uint8_t> d_hard;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
