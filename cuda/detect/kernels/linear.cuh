/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CUDA_LINEAR_CUH
#define INCLUDED_GPUMIMO_CUDA_LINEAR_CUH

#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

std::size_t linear_workspace_bytes(int nt, int nr, bool dbl);
void launch_linear(const chunk_args& a, bool mmse, void* ws, bool dbl, cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
