/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_GUARD_H
#define INCLUDED_GPUMIMO_CORE_APSM_GUARD_H

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <complex>
#include <cstddef>
#include <functional>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! Trains every user's filter on the first n pilot vectors: rx n x antennas (the
 *  caller's rows), sent users x n (user-major). */
using apsm_trainer = std::function<std::vector<apsm_filter>(
    const std::complex<float>* rx, std::size_t n, const std::complex<float>* sent)>;
/*! Soft symbols, users x n, of every user's filter on n received vectors. */
using apsm_detector_fn = std::function<void(const std::vector<apsm_filter>& filters,
                                            const std::complex<float>* rx,
                                            std::size_t n,
                                            std::complex<float>* soft)>;

/*! What the guard decided for each user. */
struct apsm_guard_report {
    std::vector<bool> least_squares;          //!< the user got the least-squares filter
    std::vector<double> apsm_mse, ls_mse;     //!< held-out mean |soft - sent|^2
    std::size_t fitted = 0, held_out = 0;     //!< pilots each part had
};

/*! How much lower than least squares' APSM's held-out mean squared error must be for
 *  the guard to keep APSM: 7%. Chosen on the over-the-air recordings' antenna sweep
 *  (docs/apsm.md): with no margin APSM stayed where it then did worse on the data for 4
 *  of 168 (recording, antennas, user) cases, with 3% for 1, with 7% for none. */
constexpr double apsm_guard_margin = 0.07;

/*!
 * \brief The least-squares guard (apsm_params::ls_guard): APSM where it generalises
 * better than least squares, least squares where it does not.
 *
 * `filters` holds every user's APSM filter trained on all n pilots. The guard trains
 * APSM again on the first n - n/4 pilots (`train`, the engine's own trainer) and least
 * squares (ls_train) on the same ones, runs both on the held-out last n/4 (`detect` for
 * APSM), and unless APSM's mean squared error to the sent symbols is at least
 * apsm_guard_margin below least squares', gives the user the least-squares filter of
 * all n pilots, in the shape of its APSM filter (the same dictionary, input scale and
 * weights, the Gaussian coefficients zero, the linear part scaled to match), so that
 * every user's filter still comes from one training as the GPU detector requires. The
 * held-out pilots come last, as data symbols come after the training in time. Nothing
 * changes where the guard is off, the linear weight is 0 (no linear part to carry least
 * squares), n < 16, or the fitted pilots cannot give least squares (fewer than the
 * antennas: singular). Returns what it decided (empty when it did
 * nothing).
 */
apsm_guard_report guard_with_least_squares(const apsm_params& p,
                                           const std::complex<float>* rx,
                                           std::size_t n,
                                           int antennas,
                                           int users,
                                           const std::complex<float>* sent,
                                           std::vector<apsm_filter>& filters,
                                           const apsm_trainer& train,
                                           const apsm_detector_fn& detect);

/*! The guarded training on the CPU reference, user by user (apsm_train, apsm_detect):
 *  what the CPU engine does, for callers that train without an engine. */
std::vector<apsm_filter> apsm_train_guarded(const apsm_params& p,
                                            const std::complex<float>* rx,
                                            std::size_t n,
                                            int antennas,
                                            int users,
                                            const std::complex<float>* sent,
                                            apsm_guard_report* report = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
