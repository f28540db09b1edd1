/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Small dense linear algebra for the CPU reference detectors, in double precision.
 * Matrices are a few rows and columns (at most 32 x 16), so plain loops are clearest.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LINALG_H
#define INCLUDED_GPUMIMO_CORE_LINALG_H

#include <cmath>
#include <complex>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {
namespace linalg {

using cd = std::complex<double>;

/*! Row-major dense matrix. */
template <typename T>
struct matrix {
    int rows = 0;
    int cols = 0;
    std::vector<T> a;

    matrix() = default;
    matrix(int r, int c) : rows(r), cols(c), a(static_cast<std::size_t>(r) * c, T(0)) {}
    T& operator()(int r, int c) { return a[static_cast<std::size_t>(r) * cols + c]; }
    const T& operator()(int r, int c) const
    {
        return a[static_cast<std::size_t>(r) * cols + c];
    }
};
using cmatrix = matrix<cd>;
using rmatrix = matrix<double>;

/*! Loads an nr x nt row-major complex<float> channel into double precision. */
cmatrix load_channel(const std::complex<float>* h, int nr, int nt);
std::vector<cd> load_vector(const std::complex<float>* y, int n);

/*!
 * QR by modified Gram-Schmidt: H(:, perm) = Q R with Q (rows x cols) orthonormal
 * columns and R (cols x cols) upper triangular with a real, non-negative diagonal.
 * With sorted = true the column order is chosen as in Wübben et al.'s sorted QR
 * (SQRD): at each step the remaining column of least norm is taken next, so that the
 * last rows of R, where a tree search starts, have the largest diagonal entries.
 */
template <typename T>
struct qr_result {
    matrix<T> q;
    matrix<T> r;
    std::vector<int> perm;
};
qr_result<cd> qr_complex(const cmatrix& h, bool sorted);
qr_result<double> qr_real(const rmatrix& h);

/*! The smallest diagonal entry of R in qr_complex(load_channel(h, nr, nt), false), by
 *  the same arithmetic, with the columns worked on in `work` (no allocation once it
 *  holds nr x nt): the rank check of every carrier's H at the rate frames arrive. */
double qr_min_diagonal(const std::complex<float>* h, int nr, int nt, std::vector<cd>& work);

/*! Q^H v computed as the extra column of a modified Gram-Schmidt of [H | v]: each
 *  coefficient is taken from v with the earlier projections already removed. */
std::vector<cd> mgs_project(const cmatrix& q, std::vector<cd> v);
std::vector<double> mgs_project(const rmatrix& q, std::vector<double> v);

/*! The order of a real-valued decomposition of y = H s.
 *  interleaved (the N-way paper's MRVD): [Re s_0, Im s_0, Re s_1, Im s_1, ...];
 *  stacked (the sphere detector paper's): [Re s_0 .. Re s_{n-1}, Im s_0 .. Im s_{n-1}].
 */
enum class rvd_order { interleaved, stacked };
/*! Index of the real or imaginary part of complex element i of an n-vector. */
inline int rvd_index(rvd_order order, int i, bool imag, int n)
{
    return order == rvd_order::interleaved ? 2 * i + (imag ? 1 : 0) : i + (imag ? n : 0);
}
rmatrix real_channel(const cmatrix& h, rvd_order order);
std::vector<double> real_vector(const std::vector<cd>& y, rvd_order order);

cmatrix conj_transpose(const cmatrix& a);
cmatrix multiply(const cmatrix& a, const cmatrix& b);
std::vector<cd> multiply(const cmatrix& a, const std::vector<cd>& v);
/*! Inverse by Gauss-Jordan elimination with partial pivoting (square, nonsingular). */
cmatrix inverse(cmatrix a);

namespace detail {
inline double conj_of(double x) { return x; }
inline cd conj_of(const cd& x) { return std::conj(x); }
inline double real_of(double x) { return x; }
inline double real_of(const cd& x) { return x.real(); }
// Products spelled out: std::complex's operator* goes through the C99 Annex G routine
// (__muldc3) for its Inf/NaN cases, a call per product that made the channel smoother's
// Cholesky solves 5x slower; the values here are finite.
inline double mul(double a, double b) { return a * b; }
inline cd mul(const cd& a, const cd& b)
{
    return { a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real() };
}
inline double norm_of(double x) { return x * x; }
inline double norm_of(const cd& x) { return x.real() * x.real() + x.imag() * x.imag(); }
} // namespace detail

/*!
 * In-place Cholesky of a Hermitian (real: symmetric) positive definite n x n row-major
 * matrix: its lower triangle becomes C with A = C C^H. False, with the matrix half
 * done, when a pivot is not above min_pivot * (1 + |a_jj|) (min_pivot 0: not above 0).
 * Used by the least-squares APSM start (real) and the channel smoother (complex).
 */
template <typename T>
bool cholesky(T* a, int n, double min_pivot = 0)
{
    for (int j = 0; j < n; j++) {
        const double ajj = detail::real_of(a[std::size_t(j) * n + j]);
        double d = ajj;
        for (int k = 0; k < j; k++) {
            d -= detail::norm_of(a[std::size_t(j) * n + k]);
        }
        if (!(d > min_pivot * (1 + std::abs(ajj))))
            return false;
        d = std::sqrt(d);
        a[std::size_t(j) * n + j] = T(d);
        for (int i = j + 1; i < n; i++) {
            T s = a[std::size_t(i) * n + j];
            for (int k = 0; k < j; k++)
                s -= detail::mul(a[std::size_t(i) * n + k], detail::conj_of(a[std::size_t(j) * n + k]));
            a[std::size_t(i) * n + j] = s / d;
        }
    }
    return true;
}

/*! x = C^-1 x: forward substitution with cholesky()'s lower triangle. */
template <typename T>
void cholesky_forward(const T* c, int n, T* x)
{
    for (int i = 0; i < n; i++) {
        T s = x[i];
        for (int k = 0; k < i; k++)
            s -= detail::mul(c[std::size_t(i) * n + k], x[k]);
        x[i] = s / detail::real_of(c[std::size_t(i) * n + i]);
    }
}

/*! x = C^-H x: back substitution with its conjugate transpose. */
template <typename T>
void cholesky_backward(const T* c, int n, T* x)
{
    for (int i = n - 1; i >= 0; i--) {
        T s = x[i];
        for (int k = i + 1; k < n; k++)
            s -= detail::mul(detail::conj_of(c[std::size_t(k) * n + i]), x[k]);
        x[i] = s / detail::real_of(c[std::size_t(i) * n + i]);
    }
}

} // namespace linalg
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
