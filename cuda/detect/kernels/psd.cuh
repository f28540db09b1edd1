/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CUDA_PSD_CUH
#define INCLUDED_GPUMIMO_CUDA_PSD_CUH

#include "detect/kernels/chunk_args.cuh"

#include <vector>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! The level set in device-ready form; eval_x = nodes evaluated at once on level x. */
struct psd_plan {
    int nlevels = 0; // lvl_nr
    int lvl[18];     // lvl_0 .. lvl_nr
    int exp[18];     // exp_0 .. exp_{nr-1}
    int eval[18];    // eval_1 .. eval_nr at [1..nr]
    int max_eval = 0;
};
/*! Builds the plan; false with the reason when the GPU kernel cannot take the set. */
bool psd_make_plan(const std::vector<int>& lvl,
                   const std::vector<int>& exp,
                   int npam,
                   int nt,
                   psd_plan& plan,
                   std::string* why);
std::size_t psd_workspace_bytes(int nt, int nr, bool dbl);
std::size_t psd_shared_bytes(const psd_plan& plan, int nt, bool dbl);
/*! max_nodes: detector_params::psd.max_nodes, each vector's node budget (psd.cu says
 *  what each kernel counts); searches that reach it are counted in
 *  device_errors::search_budget_hits. */
void launch_psd(const chunk_args& a,
                const psd_plan& plan,
                long long max_nodes,
                bool block_search,
                void* ws,
                unsigned* counter,
                bool dbl,
                cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
