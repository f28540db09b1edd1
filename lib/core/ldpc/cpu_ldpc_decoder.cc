/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU reference LDPC decoders: layered min-sum (normalised, offset) and layered
 * sum-product, one codeword at a time.
 *
 * Internally LLRs are ln P(0) / P(1), the decoding literature's sign (a check message's
 * sign is then the product of the others' signs); the core's ln P(1) / P(0) is negated
 * on the way in and out. The min-sum arithmetic is spelled out step by step, float by
 * float, in the order cuda/ldpc/gpu_ldpc_decoder.cu repeats it with round-to-nearest intrinsics
 * (no fused multiply-add), so that both give the same bits.
 */
#include "ldpc/ldpc_internal.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpumimo {
namespace core {

ldpc_algorithm ldpc_algorithm_from_string(const std::string& name)
{
    if (name == "min_sum")
        return ldpc_algorithm::min_sum;
    if (name == "min_sum_half")
        return ldpc_algorithm::min_sum_half;
    if (name == "sum_product")
        return ldpc_algorithm::sum_product;
    throw std::invalid_argument("unknown LDPC algorithm " + quoted_text(name) +
                                " (expected min_sum, min_sum_half or sum_product)");
}

const char* to_string(ldpc_algorithm a)
{
    switch (a) {
    case ldpc_algorithm::min_sum:
        return "min_sum";
    case ldpc_algorithm::min_sum_half:
        return "min_sum_half";
    case ldpc_algorithm::sum_product:
        return "sum_product";
    }
    return "unknown";
}

void ldpc_decoder_config::validate() const
{
    if (max_iterations < 1 || max_iterations > 10000)
        throw std::invalid_argument("ldpc_decoder_config: max_iterations must be 1 to 10000");
    if (!(normalisation > 0.0f && normalisation <= 1.0f))
        throw std::invalid_argument("ldpc_decoder_config: normalisation must be in (0, 1]");
    if (!(offset >= 0.0f && offset < 100.0f))
        throw std::invalid_argument("ldpc_decoder_config: offset must be in [0, 100)");
}

cpu_ldpc_decoder::cpu_ldpc_decoder(const ldpc_code& code, const ldpc_decoder_config& config)
    : d_code(code), d_config(config)
{
    d_config.validate();
    if (d_code.layers.empty() || d_code.bits.size() != std::size_t(d_code.n))
        throw std::invalid_argument("cpu_ldpc_decoder: the code is not finished "
                                    "(finish_ldpc_code)");
    d_edge_offset.assign(std::size_t(d_code.m) + 1, 0);
    for (int c = 0; c < d_code.m; c++)
        d_edge_offset[std::size_t(c) + 1] =
            d_edge_offset[std::size_t(c)] + int(d_code.checks[std::size_t(c)].size());
    const std::size_t deg = std::size_t(d_code.max_check_degree());
    d_app.resize(std::size_t(d_code.n));
    d_msg.resize(d_code.edges());
    d_t.resize(deg);
    d_phi.resize(2 * deg + 1);
    d_hard.resize(std::size_t(d_code.n));
}

std::size_t cpu_ldpc_decoder::decode(const float* llr, std::size_t frames, const ldpc_outputs& out)
{
    const std::size_t n = std::size_t(d_code.n);
    std::size_t good = 0;
    for (std::size_t f = 0; f < frames; f++) {
        for (std::size_t v = 0; v < n; v++)
            d_app[v] = ldpc_detail::channel_llr(llr[f * n + v]);
        good += decode_one(out, f);
    }
    return good;
}

std::size_t cpu_ldpc_decoder::decode(const std::int8_t* llr,
                                     float scale,
                                     std::size_t frames,
                                     const ldpc_outputs& out)
{
    if (!(scale > 0.0f) || !std::isfinite(scale))
        throw std::invalid_argument("cpu_ldpc_decoder: the int8 scale must be finite and > 0");
    const std::size_t n = std::size_t(d_code.n);
    std::size_t good = 0;
    for (std::size_t f = 0; f < frames; f++) {
        for (std::size_t v = 0; v < n; v++)
            d_app[v] = ldpc_detail::channel_llr(llr[f * n + v], scale);
        good += decode_one(out, f);
    }
    return good;
}

// The layered schedule both precisions share: every check of every layer in order
// (update(check) does one), then the syndrome after the iterations that need it. A
// codeword counts as decoded only when every check holds and no a-posteriori LLR is
// exactly 0 or NaN: a bit whose LLR is 0 was not decided but defaulted to 0, and a codeword of
// zero LLRs (what a detector writes for symbols it refused) would otherwise pass as the
// all-zero codeword.
template <typename Update>
std::pair<int, bool> cpu_ldpc_decoder::iterate(Update update)
{
    const std::size_t n = std::size_t(d_code.n);
    std::fill(d_msg.begin(), d_msg.end(), 0.0f);
    int iterations = 0;
    bool ok = false;
    for (int it = 0; it < d_config.max_iterations; it++) {
        for (const auto& layer : d_code.layers)
            for (const int c : layer)
                update(d_code.checks[std::size_t(c)], &d_msg[std::size_t(d_edge_offset[std::size_t(c)])]);
        iterations = it + 1;
        if (d_config.early_termination || it + 1 == d_config.max_iterations) {
            bool undecided = false;
            for (std::size_t v = 0; v < n; v++) {
                d_hard[v] = d_app[v] < 0.0f;
                undecided |= !ldpc_detail::decided(d_app[v]);
            }
            ok = !undecided && d_code.satisfied(d_hard.data());
            if (ok && d_config.early_termination)
                break;
        }
    }
    return { iterations, ok };
}

std::size_t cpu_ldpc_decoder::decode_one(const ldpc_outputs& out, std::size_t frame)
{
    if (d_config.algorithm == ldpc_algorithm::min_sum_half)
        return decode_one_half(out, frame);
    const bool min_sum = d_config.algorithm == ldpc_algorithm::min_sum;
    const auto [iterations, ok] = iterate([&](const std::vector<int>& bits, float* msg) {
        const std::size_t deg = bits.size();
        for (std::size_t j = 0; j < deg; j++)
            d_t[j] = d_app[std::size_t(bits[j])] - msg[j];
        if (min_sum)
            ldpc_detail::min_sum_messages(d_t.data(), deg, d_config.normalisation, d_config.offset, msg);
        else
            ldpc_detail::sum_product_messages(d_t.data(), deg, d_phi.data(), msg);
        for (std::size_t j = 0; j < deg; j++)
            d_app[std::size_t(bits[j])] = d_t[j] + msg[j];
    });
    return write_outputs(out, frame, iterations, ok);
}

// decode_one's steps in half precision: the codeword scaled by its power of two, every
// value a half, t saturated (ldpc.h), the result scaled back.
std::size_t cpu_ldpc_decoder::decode_one_half(const ldpc_outputs& out, std::size_t frame)
{
    using ldpc_detail::round_to_half;
    const std::size_t n = std::size_t(d_code.n);
    const float limit = ldpc_half_saturation;
    float largest = 0.0f;
    for (std::size_t v = 0; v < n; v++)
        largest = std::fmax(largest, std::fabs(d_app[v]));
    const int k = ldpc_detail::half_scale_exponent(largest);
    for (std::size_t v = 0; v < n; v++)
        d_app[v] = ldpc_detail::half_channel_llr(d_app[v], k);
    const float normalisation = round_to_half(d_config.normalisation);
    const float offset = round_to_half(std::ldexp(d_config.offset, -k));
    const auto [iterations, ok] = iterate([&](const std::vector<int>& bits, float* msg) {
        const std::size_t deg = bits.size();
        for (std::size_t j = 0; j < deg; j++)
            d_t[j] = std::fmin(std::fmax(round_to_half(d_app[std::size_t(bits[j])] - msg[j]), -limit), limit);
        ldpc_detail::min_sum_messages_half(d_t.data(), deg, normalisation, offset, msg);
        for (std::size_t j = 0; j < deg; j++)
            d_app[std::size_t(bits[j])] = round_to_half(d_t[j] + msg[j]);
    });
    for (std::size_t v = 0; v < n; v++) // back to the codeword's scale; decisions unchanged
        d_app[v] = ldpc_detail::half_output_llr(d_app[v], k);
    return write_outputs(out, frame, iterations, ok);
}

std::size_t cpu_ldpc_decoder::write_outputs(const ldpc_outputs& out, std::size_t frame, int iterations, bool ok)
{
    const std::size_t n = std::size_t(d_code.n);
    if (out.app)
        for (std::size_t v = 0; v < n; v++)
            out.app[frame * n + v] = -d_app[v];
    if (out.bits)
        for (std::size_t v = 0; v < n; v++)
            out.bits[frame * n + v] = d_hard[v];
    if (out.iterations)
        out.iterations[frame] = iterations;
    if (out.satisfied)
        out.satisfied[frame] = ok;
    return ok;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
