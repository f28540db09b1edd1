/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The detector registry's GPU side: one entry per detector of GPUMIMO_DETECTORS
 * (core/detect/detector_params.h), defined beside its kernels (detect/kernels/X.cu).
 * gpu_detector (detect/gpu_detector.cu) reads only this table: it knows no algorithm.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_GPU_REGISTRY_CUH
#define INCLUDED_GPUMIMO_CUDA_GPU_REGISTRY_CUH

#include "detect/kernels/chunk_args.cuh"

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! What one launch gets, the same for every detector. */
struct gpu_launch {
    chunk_args a;                            // the chunk, with its device pointers set
    const core::detector_params* params;     // the detector's parameters
    const void* plan;                        // the entry's prepared state, or nullptr
    void* ws;                                // workspace_bytes() x a.nch bytes
    unsigned* work_counter;                  // one counter for persistent grids
    bool dbl;                                // float64 kernels
};

/*! A detector's CUDA implementation. */
struct gpu_detector_entry {
    /*! False, with the reason in *why, where the kernels cannot take the configuration
     *  (which the CPU entry's check accepted). */
    bool (*supports)(const core::constellation&,
                     int nt,
                     int nr,
                     const core::detector_params&,
                     std::string* why);
    /*! Bytes of workspace per channel matrix. */
    std::size_t (*workspace_bytes)(int nt, int nr, const core::detector_params&, bool dbl);
    /*! Host-side state made once per detector and handed to every launch (psd's level
     *  plan); nullptr for none. */
    std::shared_ptr<const void> (*prepare)(const core::constellation&,
                                           int nt,
                                           const core::detector_params&);
    void (*launch)(const gpu_launch&, cudaStream_t);
    /*! Host-to-host chunk size and stream count; 0: the runtime's automatic choice
     *  (gpu_detector.cu). Work whose time per vector varies (a tree search) wants longer
     *  chunks and more of them in flight, so that one hard problem's tail is diluted. */
    std::size_t chunk_vectors = 0;
    int streams = 0;
};

#define GPUMIMO_GPU_DETECTOR_DECLARE(name) const gpu_detector_entry& name##_gpu_detector();
GPUMIMO_DETECTORS(GPUMIMO_GPU_DETECTOR_DECLARE)
#undef GPUMIMO_GPU_DETECTOR_DECLARE

/*! The GPU entry of an algorithm (every detector of the registry has one). */
const gpu_detector_entry& gpu_registry_entry(core::algorithm algo);

/*! For entries that need no workspace or state. */
inline std::size_t no_workspace(int, int, const core::detector_params&, bool) { return 0; }
inline std::shared_ptr<const void>
no_plan(const core::constellation&, int, const core::detector_params&)
{
    return nullptr;
}
inline bool
supported(const core::constellation&, int, int, const core::detector_params&, std::string*)
{
    return true;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
