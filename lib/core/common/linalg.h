/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Small dense linear algebra for the CPU reference detectors, in double precision.
 * Matrices are a few rows and columns (at most 32 x 16), so plain loops are clearest.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LINALG_H
#define INCLUDED_GPUMIMO_CORE_LINALG_H

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

} // namespace linalg
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
