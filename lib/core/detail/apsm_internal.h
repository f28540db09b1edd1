/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the APSM and least-squares references (not installed).
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_INTERNAL_H
#define INCLUDED_GPUMIMO_CORE_APSM_INTERNAL_H

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! Throws std::invalid_argument for no antennas, no training symbols or a non-finite
 *  received sample or training symbol (naming it). */
void check_training_input(const std::complex<float>* rx,
                          std::size_t n,
                          int antennas,
                          const std::complex<float>* sent);
/*! The training symbols' part of check_training_input. */
void check_training_symbols(const std::complex<float>* sent, std::size_t n);

/*! The dictionary's capacity in real samples for `total` of them (two per training
 *  symbol): min(2 dictionary_size, total). Throws std::invalid_argument when several
 *  passes are asked for and the whole training set does not fit. */
std::size_t dictionary_capacity(const apsm_params& p, std::size_t total);

/*! 1 / sqrt(mean ||r||^2) of the n training vectors (apsm_params::normalize_input).
 *  Throws std::invalid_argument when they are all zero. */
double training_input_scale(const std::complex<float>* rx, std::size_t n, int antennas);

/*! The real least-squares filters (dimension 2M, ls_train's lin) of several users
 *  trained on the same n vectors: one Cholesky factorisation of the normal matrix,
 *  one solve per user. sent[u] holds user u's n symbols. Throws std::invalid_argument
 *  when the training vectors do not span the antennas. */
std::vector<std::vector<double>> ls_weights(const std::complex<float>* rx,
                                            std::size_t n,
                                            int antennas,
                                            const std::vector<const std::complex<float>*>& sent);

/*! The filter's mean |soft - sent|^2 over n training symbols, never below 1e-6: its
 *  noise_variance. */
double training_residual(const apsm_filter& f,
                         const std::complex<float>* rx,
                         std::size_t n,
                         const std::complex<float>* sent);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
