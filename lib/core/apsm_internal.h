/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the APSM and least-squares references (not installed).
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_INTERNAL_H
#define INCLUDED_GPUMIMO_CORE_APSM_INTERNAL_H

#include <gnuradio/gpumimo/core/apsm.h>

namespace gr {
namespace gpumimo {
namespace core {

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
