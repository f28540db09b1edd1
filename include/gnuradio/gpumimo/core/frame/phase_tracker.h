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

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Each payload symbol's common phase from the tracking pilots (docs/frame.md,
 * "Tracking"), the CPU reference.
 *
 * What is left of the carrier offset after synchronisation, and the oscillators' phase
 * noise, turn every carrier of a payload symbol by the same phase phi_s relative to the
 * channel estimated in the pilot symbols; the residual offset makes it grow from symbol
 * to symbol. On tracking carrier c the receiver expects H_c p_c (p_c the streams' pilot
 * values), so phi_s = arg sum_r sum_c conj((H_c p_c)_r) y_{r,s,c}: the maximum-likelihood
 * estimate of a common phase, weighting each carrier and antenna by its expected
 * amplitude. The payload is turned back by e^{-i phi_s} before detection.
 */
class phase_tracker
{
public:
    explicit phase_tracker(const frame_format& frame);

    /*! e^{-i phi_s} for every payload symbol s into derotation[payload_symbols]:
     *  antenna[r] points at antenna r's first payload symbol, [symbol][used carrier];
     *  the estimate e is the frame's. 1 where the pilots see nothing (a zero or
     *  non-finite sum). Allocates nothing after the first call (one thread at a time).
     *  Frames of one pilot block only (pilot_interval 0: the payload symbols contiguous);
     *  std::invalid_argument otherwise. */
    void estimate(const channel_estimate& e,
                  const std::complex<float>* const* antenna,
                  std::complex<float>* derotation);
    /*! The same with antenna r's payload symbols at carriers + r * antenna_stride. */
    void estimate(const channel_estimate& e,
                  const std::complex<float>* carriers,
                  std::size_t antenna_stride,
                  std::complex<float>* derotation);

    /*! One payload symbol's e^{-i phi} against its own estimate e (time tracking,
     *  frame_format::pilot_interval: the channel interpolated to that symbol):
     *  antenna[r] points at the symbol's used carriers on antenna r. */
    std::complex<float> estimate_symbol(const channel_estimate& e,
                                        const std::complex<float>* const* antenna);

    /*! The tracking carriers (indices into the used carriers) and the streams' pilot
     *  value on each, [carrier][stream]: what the GPU version copies. */
    const std::vector<int>& carriers() const { return d_carriers; }
    const std::vector<std::complex<float>>& pilots() const { return d_pilots; }

private:
    // The pilots' expected values under e into d_expected; e^{-i phi} of the symbol at
    // antenna[r] + offset against them.
    void expect(const channel_estimate& e);
    std::complex<float> derotation_of(int rx,
                                      const std::complex<float>* const* antenna,
                                      std::size_t offset) const;
    frame_format d_frame;
    std::vector<int> d_carriers;
    std::vector<std::complex<float>> d_pilots; // [tracking carrier][stream]
    // Per call: the pilots' expected values [tracking carrier][antenna], the antennas.
    std::vector<std::complex<double>> d_expected;
    std::vector<const std::complex<float>*> d_antenna;
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
