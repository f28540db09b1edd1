/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every detection launcher receives for one chunk of a batch, and the launchers.
 * All pointers are device pointers. Only the CUDA toolkit here.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_KERNELS_CUH
#define INCLUDED_GPUMIMO_CUDA_KERNELS_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! Bad input the kernels met, as the smallest global index of each kind (or ~0), and
 *  the vectors whose search ran out of its node budget (a count, not an index). */
struct device_errors {
    unsigned long long first_nonfinite_vector;
    unsigned long long first_nonfinite_channel;
    unsigned long long first_singular_channel;
    unsigned long long first_bad_noise; // index into noise_var (one value when scalar)
    unsigned long long first_out_of_range_vector; // ||y||^2 beyond its model's range
    unsigned long long search_budget_hits;        // psd: searches stopped at max_nodes
};

/*! A record with nothing in it: every index ~0, as the device's reset (a memset of
 *  0xff) leaves it, and the count 0 (reset_device_errors); one definition, so that an
 *  index added later cannot be left 0 ("bad at index 0") by an initialiser list that
 *  does not know it. */
inline device_errors no_device_errors()
{
    device_errors e;
    std::memset(&e, 0xff, sizeof e);
    e.search_budget_hits = 0;
    return e;
}

/*! Sets the device's record to no_device_errors() on stream s. */
inline cudaError_t reset_device_errors(device_errors* e, cudaStream_t s)
{
    const cudaError_t r = cudaMemsetAsync(e, 0xff, sizeof *e, s);
    if (r != cudaSuccess)
        return r;
    return cudaMemsetAsync(&e->search_budget_hits, 0, sizeof e->search_budget_hits, s);
}

/*! One chunk: vectors [0, n) of it belong to local channel (i + first_offset) / group. */
struct chunk_args {
    const float2* y;    // [n][nr]
    const float2* h;    // [nch][nr][nt]
    const float* noise; // [nch] or [1]
    bool scalar_noise;
    float* llr; // [n][nt*m]
    std::size_t n;
    std::size_t nch;
    std::size_t group;
    std::size_t first_offset;
    unsigned long long base_vector;  // global index of vector 0 (for error reports)
    unsigned long long base_channel; // global index of local channel 0
    unsigned long long base_noise;   // global index of noise[0]
    int nt, nr, m;
    float list_llr_clip;     // kbest, nway, psd
    float llr_clip;          // 0: none
    bool mtt_one_pass;       // mtt: the one-pass trellis (detector_params::mtt.one_pass)
    const double2* points_d; // constellation, [Q], scaled
    const float2* points_f;
    const unsigned char*
        from_levels;               // [P*P]: point of (in-phase level, quadrature level)
    const unsigned char* i_levels; // [Q]: in-phase PAM level of each point
    const unsigned char* q_levels; // [Q]: quadrature PAM level of each point
    double pam_scale;              // half the PAM level spacing
    unsigned char* channel_bad;    // [nch] workspace: 1 where H is not usable
    float* y_power_limit;          // [nch] workspace: the largest ||y||^2 of its vectors
    double max_symbol_energy;      // the constellation's largest |s|^2
    device_errors* errors;
};

__host__ __device__ inline std::size_t channel_of(const chunk_args& a, std::size_t i)
{
    return (i + a.first_offset) / a.group;
}

/*! Marks non-finite and rank-deficient channels (double precision, the criterion of
 *  core::validate_batch) and sets each channel's y_power_limit. */
void launch_check_channels(const chunk_args& a, cudaStream_t s);
/*! Zeroes the LLRs of vectors with unusable samples, out of their model's range or of
 *  bad channels, saturates every LLR at +-core::llr_limit (NaN to 0), applies llr_clip,
 *  and records the first of each kind of bad input. */
void launch_finish(const chunk_args& a, cudaStream_t s);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
