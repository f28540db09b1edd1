/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CUDA_KBEST_CUH
#define INCLUDED_GPUMIMO_CUDA_KBEST_CUH

#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

/*! Largest K * sqrt(Q) (children per level) the CUDA K-best ranks in one block. */
constexpr int kbest_max_children = 1024;
std::size_t kbest_workspace_bytes(int nt, int nr, bool dbl);
void launch_kbest(const chunk_args& a, int k, void* ws, bool dbl, cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
