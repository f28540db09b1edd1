/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_CONSTELLATION_H
#define INCLUDED_GPUMIMO_CORE_CONSTELLATION_H

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! The modulations: square QAM from QPSK to 1024-QAM, and BPSK and pi/2-BPSK. */
enum class modulation { qpsk, qam16, qam64, qam256, qam1024, bpsk, pi2_bpsk };

/*! Parses "qpsk" (or "4qam"), "16qam", "64qam", "256qam", "1024qam", "bpsk",
 *  "pi/2-bpsk" (or "pi2bpsk", "pi2-bpsk"), case-insensitive.
 *  \throws std::invalid_argument for any other name. */
modulation parse_modulation(const std::string& name);
/*! "qpsk", "16qam", ..., "1024qam", "bpsk", "pi/2-bpsk": parse_modulation's names. */
std::string to_string(modulation mod);

/*!
 * \brief The constellations, unit average energy, labelled as 3GPP TS 38.211 section 5.1
 * labels them.
 *
 * Square QAM (QPSK to 1024-QAM, 5.1.3 to 5.1.7), Gray-mapped:
 * a point carries m = log2(Q) bits b_0 ... b_{m-1}. Its index in points() is the
 * integer whose most significant bit is b_0:
 *   index = sum_k b_k * 2^(m-1-k).
 * The in-phase part depends only on the even bits b_0, b_2, ... and the quadrature part
 * only on the odd bits b_1, b_3, ..., each an h = m/2 bit Gray-coded PAM:
 * \f[ a(c_0..c_{h-1}) = (1-2c_0)\,(2^{h-1} - a(c_1..c_{h-1})),\quad a(c) = 1-2c \f]
 * scaled by 1/sqrt(2(Q-1)/3) (QPSK 1/sqrt(2), 16-QAM 1/sqrt(10), 64-QAM 1/sqrt(42),
 * 256-QAM 1/sqrt(170), 1024-QAM 1/sqrt(682): 38.211 5.1.3-5.1.7).
 *
 * The real-valued detectors work on the PAM alphabet of one dimension: level index
 * l = 0..P-1 (P = sqrt(Q)) stands for the amplitude (2l - (P-1)) * scale(), ascending.
 *
 * BPSK (5.1.2): one bit b, the point (1-2b)(1+j)/sqrt(2), on the diagonal. pi/2-BPSK
 * (5.1.1): the same points for even symbol indices i of a stream and turned by j for odd
 * ones, d(i) = e^{j pi/2 (i mod 2)} (1-2b)(1+j)/sqrt(2): points() holds the even symbols'
 * points and rotation(i) the turn. Neither is a square QAM (square() is false): their
 * points lie on one line, and the PAM accessors (pam_size() to point_from_levels()) do
 * not apply; the detectors that search the PAM lattice refuse them (core/detect/
 * registry.h).
 */
class constellation
{
public:
    explicit constellation(modulation mod);

    modulation mod() const { return d_mod; }
    int bits_per_symbol() const { return d_bits; }
    int size() const { return 1 << d_bits; }
    /*! Square QAM (QPSK to 1024-QAM); false for BPSK and pi/2-BPSK. */
    bool square() const { return d_square; }
    /*! Square QAM: sqrt(Q) levels a dimension. */
    int pam_size() const { return 1 << (d_bits / 2); }
    /*! Square QAM: the distance between neighbouring PAM levels is 2 * scale(). BPSK:
     *  1/sqrt(2), its points' coordinates. */
    double scale() const { return d_scale; }
    /*! The largest symbol energy |s|^2: a corner point's, 2 ((P - 1) scale())^2, for
     *  square QAM; 1 for BPSK. */
    double max_energy() const
    {
        if (!d_square)
            return 1.0;
        const double a = (pam_size() - 1) * d_scale;
        return 2.0 * a * a;
    }
    /*! The turn of symbol index i of a stream: j for odd i in pi/2-BPSK, else 1. The
     *  sent symbol is point(q) * rotation(i). */
    std::complex<double> rotation(std::size_t i) const
    {
        return d_mod == modulation::pi2_bpsk && (i & 1) ? std::complex<double>(0, 1)
                                                        : std::complex<double>(1, 0);
    }

    /*! Point with index i (see class description), unit average energy. */
    std::complex<double> point(int i) const { return d_points[i]; }
    const std::vector<std::complex<double>>& points() const { return d_points; }
    /*! Label bit k (0 = b_0) of point i. */
    int bit(int i, int k) const { return (i >> (d_bits - 1 - k)) & 1; }

    /*! Square QAM only, as the rest: amplitude of PAM level l (ascending). */
    double pam_amplitude(int l) const { return (2 * l - (pam_size() - 1)) * d_scale; }
    /*! PAM level of the in-phase (quadrature) part of point i. */
    int in_phase_level(int i) const { return d_i_level[i]; }
    int quadrature_level(int i) const { return d_q_level[i]; }
    /*! Index of the point whose in-phase level is li and quadrature level is lq. */
    int point_from_levels(int li, int lq) const
    {
        return d_from_levels[li * pam_size() + lq];
    }

private:
    modulation d_mod;
    int d_bits;
    bool d_square;
    double d_scale;
    std::vector<std::complex<double>> d_points;
    std::vector<int> d_i_level, d_q_level, d_from_levels;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
