/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The least-squares start of the APSM trainer's linear parts (apsm_ls.cu), used by
 * apsm_train.cu. Samples are rows of 32 floats (16 antennas, zero padded), as there.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_APSM_LS_CUH
#define INCLUDED_GPUMIMO_CUDA_APSM_LS_CUH

#include <cuda_runtime.h>

#include <cstddef>

namespace gr {
namespace gpumimo {
namespace core {
namespace apsm_ls {

/*! The most users launch() takes (its per-block shared memory). */
int max_users();

/*! Doubles of device scratch launch() needs for `total` real samples and `users` users. */
std::size_t scratch_size(int total, int users);

/*!
 * On stream s, each user's real least-squares filter w of the `total` samples x (rows of
 * 32 floats, `dim` used) with targets target[u * total + j], as core::ls_weights solves
 * it (double, Cholesky of the shared normal matrix); writes lin0[u * 32 + d] =
 * w[d] * inv_wl (0 beyond dim). A pivot that is not positive sets *singular to 1 (the
 * training vectors do not span the antennas). Throws std::runtime_error on a launch
 * failure.
 */
void launch(const float* x,
            const float* target,
            int total,
            int dim,
            int users,
            double inv_wl,
            double* scratch,
            float* lin0,
            int* singular,
            cudaStream_t s);

} // namespace apsm_ls
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
