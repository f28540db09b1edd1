/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exhaustive ML detector's launcher (ml.cu).
 */
#ifndef INCLUDED_GPUMIMO_CUDA_ML_CUH
#define INCLUDED_GPUMIMO_CUDA_ML_CUH

#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

std::size_t ml_shared_bytes(int nt, int nr, int m, bool dbl);
void launch_ml(const chunk_args& a, bool dbl, cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
