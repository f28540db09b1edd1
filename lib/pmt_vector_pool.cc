/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pmt_vector_pool.h"

#include <algorithm>

namespace gr {
namespace gpumimo {

namespace {

// A vector of `n` elements from `kept` that nobody else holds, else a new one made by
// `make(n)` (kept while there is room).
template <typename Make>
pmt::pmt_t reuse_or_make(std::vector<pmt::pmt_t>& kept, std::size_t n, Make&& make)
{
    for (const pmt::pmt_t& v : kept)
        if (v.use_count() == 1 && pmt::length(v) == n)
            return v;
    pmt::pmt_t v = make(n);
    if (kept.size() < pmt_vector_pool::kMostKept)
        kept.push_back(v);
    return v;
}

} // namespace

pmt::pmt_t pmt_vector_pool::c32(const std::complex<float>* values, std::size_t n)
{
    pmt::pmt_t v = reuse_or_make(
        d_c32, n, [](std::size_t k) { return pmt::make_c32vector(k, std::complex<float>(0)); });
    std::size_t length = 0;
    std::copy(values, values + n, pmt::c32vector_writable_elements(v, length));
    return v;
}

pmt::pmt_t pmt_vector_pool::f32(const float* values, std::size_t n)
{
    pmt::pmt_t v = reuse_or_make(
        d_f32, n, [](std::size_t k) { return pmt::make_f32vector(k, 0.0f); });
    std::size_t length = 0;
    std::copy(values, values + n, pmt::f32vector_writable_elements(v, length));
    return v;
}

} // namespace gpumimo
} // namespace gr
