/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/linalg.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpumimo {
namespace core {
namespace linalg {

namespace {

inline double conj_of(double x) { return x; }
inline cd conj_of(const cd& x) { return std::conj(x); }
inline double abs2(double x) { return x * x; }
inline double abs2(const cd& x) { return std::norm(x); }

template <typename T>
qr_result<T> qr_mgs(const matrix<T>& h, bool sorted)
{
    const int m = h.rows;
    const int n = h.cols;
    qr_result<T> out;
    out.q = h;
    out.r = matrix<T>(n, n);
    out.perm.resize(n);
    std::iota(out.perm.begin(), out.perm.end(), 0);

    std::vector<double> norm2(n, 0.0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            norm2[j] += abs2(out.q(i, j));

    for (int k = 0; k < n; k++) {
        if (sorted) {
            int best = k;
            for (int j = k + 1; j < n; j++)
                if (norm2[j] < norm2[best])
                    best = j;
            if (best != k) {
                std::swap(out.perm[k], out.perm[best]);
                std::swap(norm2[k], norm2[best]);
                for (int i = 0; i < m; i++)
                    std::swap(out.q(i, k), out.q(i, best));
                for (int i = 0; i < k; i++)
                    std::swap(out.r(i, k), out.r(i, best));
            }
        }
        // Recompute the norm rather than trusting the downdated one: exact enough for
        // the ordering above, but the diagonal must be accurate.
        double nk = 0.0;
        for (int i = 0; i < m; i++)
            nk += abs2(out.q(i, k));
        const double rkk = std::sqrt(nk);
        out.r(k, k) = T(rkk);
        if (rkk > 0.0)
            for (int i = 0; i < m; i++)
                out.q(i, k) /= rkk;
        for (int j = k + 1; j < n; j++) {
            T dot(0);
            for (int i = 0; i < m; i++)
                dot += conj_of(out.q(i, k)) * out.q(i, j);
            out.r(k, j) = dot;
            for (int i = 0; i < m; i++)
                out.q(i, j) -= dot * out.q(i, k);
            norm2[j] -= abs2(dot);
        }
    }
    return out;
}

template <typename T>
std::vector<T> mgs_project_impl(const matrix<T>& q, std::vector<T> v)
{
    std::vector<T> out(q.cols);
    for (int k = 0; k < q.cols; k++) {
        T dot(0);
        for (int i = 0; i < q.rows; i++)
            dot += conj_of(q(i, k)) * v[i];
        out[k] = dot;
        for (int i = 0; i < q.rows; i++)
            v[i] -= dot * q(i, k);
    }
    return out;
}

} // namespace

cmatrix load_channel(const std::complex<float>* h, int nr, int nt)
{
    cmatrix out(nr, nt);
    for (int r = 0; r < nr; r++)
        for (int t = 0; t < nt; t++)
            out(r, t) = cd(h[r * nt + t]);
    return out;
}

std::vector<cd> load_vector(const std::complex<float>* y, int n)
{
    return std::vector<cd>(y, y + n);
}

qr_result<cd> qr_complex(const cmatrix& h, bool sorted) { return qr_mgs(h, sorted); }
qr_result<double> qr_real(const rmatrix& h) { return qr_mgs(h, false); }

double qr_min_diagonal(const std::complex<float>* h, int nr, int nt, std::vector<cd>& work)
{
    // qr_mgs's unsorted steps on q(i, j) = work[j * nr + i] (a column at a time).
    work.resize(std::size_t(nr) * nt);
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nt; j++)
            work[std::size_t(j) * nr + i] = cd(h[i * nt + j]);
    double smallest = INFINITY;
    for (int k = 0; k < nt; k++) {
        cd* qk = work.data() + std::size_t(k) * nr;
        double nk = 0.0;
        for (int i = 0; i < nr; i++)
            nk += abs2(qk[i]);
        const double rkk = std::sqrt(nk);
        smallest = std::min(smallest, rkk);
        if (rkk > 0.0)
            for (int i = 0; i < nr; i++)
                qk[i] /= rkk;
        for (int j = k + 1; j < nt; j++) {
            cd* qj = work.data() + std::size_t(j) * nr;
            cd dot(0);
            for (int i = 0; i < nr; i++)
                dot += conj_of(qk[i]) * qj[i];
            for (int i = 0; i < nr; i++)
                qj[i] -= dot * qk[i];
        }
    }
    return smallest;
}

std::vector<cd> mgs_project(const cmatrix& q, std::vector<cd> v)
{
    return mgs_project_impl(q, std::move(v));
}
std::vector<double> mgs_project(const rmatrix& q, std::vector<double> v)
{
    return mgs_project_impl(q, std::move(v));
}

rmatrix real_channel(const cmatrix& h, rvd_order order)
{
    rmatrix out(2 * h.rows, 2 * h.cols);
    for (int r = 0; r < h.rows; r++) {
        for (int t = 0; t < h.cols; t++) {
            const cd v = h(r, t);
            const int rr = rvd_index(order, r, false, h.rows);
            const int ri = rvd_index(order, r, true, h.rows);
            const int cr = rvd_index(order, t, false, h.cols);
            const int ci = rvd_index(order, t, true, h.cols);
            // Re y = Re h Re s - Im h Im s;  Im y = Im h Re s + Re h Im s
            out(rr, cr) = v.real();
            out(rr, ci) = -v.imag();
            out(ri, cr) = v.imag();
            out(ri, ci) = v.real();
        }
    }
    return out;
}

std::vector<double> real_vector(const std::vector<cd>& y, rvd_order order)
{
    const int n = static_cast<int>(y.size());
    std::vector<double> out(2 * n);
    for (int i = 0; i < n; i++) {
        out[rvd_index(order, i, false, n)] = y[i].real();
        out[rvd_index(order, i, true, n)] = y[i].imag();
    }
    return out;
}

cmatrix conj_transpose(const cmatrix& a)
{
    cmatrix out(a.cols, a.rows);
    for (int r = 0; r < a.rows; r++)
        for (int c = 0; c < a.cols; c++)
            out(c, r) = std::conj(a(r, c));
    return out;
}

cmatrix multiply(const cmatrix& a, const cmatrix& b)
{
    cmatrix out(a.rows, b.cols);
    for (int r = 0; r < a.rows; r++)
        for (int c = 0; c < b.cols; c++) {
            cd acc(0);
            for (int k = 0; k < a.cols; k++)
                acc += a(r, k) * b(k, c);
            out(r, c) = acc;
        }
    return out;
}

std::vector<cd> multiply(const cmatrix& a, const std::vector<cd>& v)
{
    std::vector<cd> out(a.rows, cd(0));
    for (int r = 0; r < a.rows; r++)
        for (int k = 0; k < a.cols; k++)
            out[r] += a(r, k) * v[k];
    return out;
}

cmatrix inverse(cmatrix a)
{
    const int n = a.rows;
    cmatrix inv(n, n);
    for (int i = 0; i < n; i++)
        inv(i, i) = 1.0;
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int r = col + 1; r < n; r++)
            if (std::abs(a(r, col)) > std::abs(a(pivot, col)))
                pivot = r;
        if (std::abs(a(pivot, col)) == 0.0)
            throw std::invalid_argument("matrix is singular");
        if (pivot != col)
            for (int c = 0; c < n; c++) {
                std::swap(a(col, c), a(pivot, c));
                std::swap(inv(col, c), inv(pivot, c));
            }
        const cd d = a(col, col);
        for (int c = 0; c < n; c++) {
            a(col, c) /= d;
            inv(col, c) /= d;
        }
        for (int r = 0; r < n; r++) {
            if (r == col)
                continue;
            const cd f = a(r, col);
            if (f == cd(0))
                continue;
            for (int c = 0; c < n; c++) {
                a(r, c) -= f * a(col, c);
                inv(r, c) -= f * inv(col, c);
            }
        }
    }
    return inv;
}

} // namespace linalg
} // namespace core
} // namespace gpumimo
} // namespace gr
