/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_PHASE_TRACKER_H
#define INCLUDED_GPUMIMO_CORE_FRAME_PHASE_TRACKER_H

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/host_device.h>

#include <cmath>

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! The per-antenna test's threshold (phase_tracker): the statistic T, a sum of `dof`
 *  squared phase deviations each over its noise variance, is about dof with one
 *  oscillator for every antenna (a chi-square with dof degrees of freedom, spread
 *  sqrt(2 dof)); seven spreads above that. */
GPUMIMO_HOST_DEVICE inline double per_antenna_threshold(int dof)
{
    return double(dof) + 7.0 * sqrt(2.0 * double(dof));
}

/*! One symbol's and antenna's term of T: its phase deviation from the symbol's common
 *  phase, arg(z_r conj(Z)), squared, over its variance n0 / (2 energy) (energy: the
 *  tracking pilots' expected power on the antenna, sum_c |(H_c p_c)_r|^2). */
GPUMIMO_HOST_DEVICE inline double per_antenna_term(double zr_re, double zr_im, double Z_re, double Z_im,
                                                   double energy, double n0)
{
    const double d = atan2(zr_im * Z_re - zr_re * Z_im, zr_re * Z_re + zr_im * Z_im);
    return d * d * 2.0 * energy / n0;
}

/*!
 * \brief Each payload symbol's phase from the tracking pilots (docs/frame.md,
 * "Tracking"), the CPU reference: one for all antennas, or one per antenna where the
 * frame shows that the antennas' oscillators differ.
 *
 * What is left of the carrier offset after synchronisation, and the oscillators' phase
 * noise, turn every carrier of a payload symbol by the same phase phi_s relative to the
 * channel estimated in the pilot symbols; the residual offset makes it grow from symbol
 * to symbol. On tracking carrier c the receiver expects H_c p_c (p_c the streams' pilot
 * values); per antenna z_{s,r} = sum_c conj((H_c p_c)_r) y_{r,s,c}, and the common phase
 * phi_s = arg sum_r z_{s,r} (the maximum-likelihood estimate of one phase, weighting each
 * carrier and antenna by its expected amplitude). Receivers whose antennas have
 * oscillators of their own (radios sharing a reference, not a local oscillator) see a
 * phase per antenna: each symbol's deviations arg(z_{s,r} conj(Z_s)) from the common
 * phase, over their noise variance n0 / (2 sum_c |(H_c p_c)_r|^2), are summed over the
 * frame into T (per_antenna_term); T above per_antenna_threshold(sum_s (R_s - 1)) means
 * the antennas' phases differ, and every antenna is then turned back by its own phase
 * arg z_{s,r}; otherwise by the common one (whose noise is R times smaller). The
 * payload is turned back by e^{-i phi} before detection.
 */
class phase_tracker
{
public:
    explicit phase_tracker(const frame_format& frame);

    /*! e^{-i phi_{s,r}} for every payload symbol s and antenna r into
     *  derotation[payload_symbols * rx], [symbol][antenna]: antenna[r] points at antenna
     *  r's first payload symbol, [symbol][used carrier]; the estimate e is the frame's
     *  (its noise_var the n0 of the test). 1 where the pilots see nothing (a zero or
     *  non-finite sum). Allocates nothing after the first call (one thread at a time).
     *  Frames of one pilot block only (pilot_interval 0: the payload symbols contiguous);
     *  std::invalid_argument otherwise. Returns whether each antenna got its own phase. */
    bool estimate(const channel_estimate& e,
                  const std::complex<float>* const* antenna,
                  std::complex<float>* derotation);
    /*! The same with antenna r's payload symbols at carriers + r * antenna_stride. */
    bool estimate(const channel_estimate& e,
                  const std::complex<float>* carriers,
                  std::size_t antenna_stride,
                  std::complex<float>* derotation);

    /*! Symbol by symbol, each against its own estimate (time tracking,
     *  frame_format::pilot_interval: the channel interpolated to that symbol): begin(),
     *  then add_symbol() for payload symbols 0, 1, ... in order (antenna[r] points at the
     *  symbol's used carriers on antenna r), then finish() with the frame's N0 writes
     *  derotation[payload_symbols * rx] as estimate() does and returns the same. */
    void begin(int rx);
    void add_symbol(const channel_estimate& e, const std::complex<float>* const* antenna);
    bool finish(double n0, std::complex<float>* derotation);

    /*! The tracking carriers (indices into the used carriers) and the streams' pilot
     *  value on each, [carrier][stream]: what the GPU version copies. */
    const std::vector<int>& carriers() const { return d_carriers; }
    const std::vector<std::complex<float>>& pilots() const { return d_pilots; }

private:
    // The pilots' expected values under e into d_expected, [tracking carrier][antenna].
    void expect(const channel_estimate& e);
    // z_{s,r} and the expected energy of the symbol at antenna[r] + offset, appended.
    void accumulate(const std::complex<float>* const* antenna, std::size_t offset);
    frame_format d_frame;
    std::vector<int> d_carriers;
    std::vector<std::complex<float>> d_pilots; // [tracking carrier][stream]
    std::vector<std::complex<double>> d_expected;
    std::vector<const std::complex<float>*> d_antenna;
    int d_rx = 0;
    std::vector<std::complex<double>> d_z; // [symbol][antenna]
    std::vector<double> d_energy;          // [symbol][antenna]
};

/*! An estimate's matrices and effective noise on the data carriers only (data: their
 *  indices, data_carriers()), in their order ([data carrier][rx][tx] and [data
 *  carrier]): what the detectors take. */
void data_carrier_estimate(const std::vector<int>& data,
                           const channel_estimate& e,
                           std::vector<std::complex<float>>& h,
                           std::vector<float>& noise);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
