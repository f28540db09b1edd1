/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CUDA_NWAY_CUH
#define INCLUDED_GPUMIMO_CUDA_NWAY_CUH

#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

std::size_t nway_workspace_bytes(int nt, int nr, int passes, bool dbl);
void launch_nway(const chunk_args& a, int passes, void* ws, bool dbl, cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
