/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core (private): complex products spelled out. std::complex's
 * operator* goes through the C99 Annex G routine (__mulsc3/__muldc3) for its Inf/NaN
 * cases, a library call per product: it made the synchroniser's frame correction 4x
 * slower than everything else there, and most of the APSM frame splitter's time. For
 * finite values both give the same result; a non-finite one gives a non-finite result
 * either way.
 */
#ifndef INCLUDED_GPUMIMO_CORE_COMMON_COMPLEX_PRODUCT_H
#define INCLUDED_GPUMIMO_CORE_COMMON_COMPLEX_PRODUCT_H

#include <complex>

namespace gr {
namespace gpumimo {
namespace core {

/*! a b */
template <typename T>
inline std::complex<T> mul(std::complex<T> a, std::complex<T> b)
{
    return { a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real() };
}

/*! conj(a) b */
template <typename T>
inline std::complex<T> conj_mul(std::complex<T> a, std::complex<T> b)
{
    return { a.real() * b.real() + a.imag() * b.imag(), a.real() * b.imag() - a.imag() * b.real() };
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
