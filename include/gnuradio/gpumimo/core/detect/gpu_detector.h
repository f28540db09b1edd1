/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: plain C++, no CUDA header needed to include it.
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_DETECTOR_H
#define INCLUDED_GPUMIMO_CORE_GPU_DETECTOR_H

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! Arithmetic inside the GPU kernels. */
enum class gpu_precision {
    /*! float32: the fast mode. LLRs match the reference within the bound of
     *  docs/gpu.md; on near-ties between path metrics a list detector may follow
     *  another path than the reference does. */
    single,
    /*! float64, like the CPU reference: LLRs and decisions equal the reference's. */
    double_
};

/*! True when the algorithm has a CUDA implementation for this configuration; else
 *  false with the reason in *why. */
bool gpu_supports(algorithm algo,
                  modulation mod,
                  int nt,
                  int nr,
                  const detector_params& params,
                  std::string* why = nullptr);

/*!
 * \brief A detector on one CUDA device, with the conventions of cpu_detector.
 *
 * The constructor checks the configuration, selects the device and allocates every
 * device workspace, pinned staging buffer and stream; detect() allocates nothing.
 * detect() runs host to host: the batch is cut into chunks that flow through several
 * streams, so that copies in, kernels and copies out overlap. chunk_vectors 0 picks
 * the chunk size: a power of two from 2^16 to 2^18 vectors, near 8 MiB of input
 * (small vectors get larger chunks, since every copy has a fixed cost; psd 2^18);
 * streams 0 picks their number (3; psd 4, whose chunks last as long as their hardest
 * problem). detect_device() cuts chunks of chunk_vectors, or of at most 2^16 vectors
 * when chunk_vectors is 0. detect_device() runs on
 * device-resident data, for GPU stages in a chain: ordered on the caller's stream, its
 * chunks forked onto the detector's streams (so that their kernels overlap) and joined
 * back.
 *
 * Bad input: shapes are checked before anything runs (std::invalid_argument); NaN/Inf
 * samples, rank-deficient matrices and N0 not finite and > 0 are found by the kernels,
 * which write zero LLRs for the affected vectors, and detect() (or check_device_errors()
 * after detect_device()) then throws std::invalid_argument naming the first one. CUDA
 * failures throw std::runtime_error naming the call.
 */
class gpu_detector
{
public:
    gpu_detector(algorithm algo,
                 modulation mod,
                 int nt,
                 int nr,
                 const detector_params& params = detector_params(),
                 int device = 0,
                 gpu_precision precision = gpu_precision::single,
                 std::size_t chunk_vectors = 0,
                 int streams = 0);
    ~gpu_detector();
    gpu_detector(const gpu_detector&) = delete;
    gpu_detector& operator=(const gpu_detector&) = delete;

    int bits_per_vector() const;
    int device() const;

    /*! Host to host; batch and llr in ordinary (or pinned) host memory. */
    void detect(const mimo_batch& batch, float* llr);

    /*! Streaming host to host, for callers that hand over one batch after another:
     *  submit() is detect() without waiting for the batch's last chunks, so that they
     *  overlap the next submit()'s first ones instead of leaving the bus idle at each
     *  call's start and end. Until finish(), every submitted batch and its llr must stay
     *  valid and the LLRs are not final. finish() waits for all of them, then throws
     *  std::invalid_argument for the first bad input among them, its index counted over
     *  the submitted batches laid end to end (y, H and noise_var each; a scalar N0 is
     *  one value). detect() is submit() then finish(). A failure of a CUDA call throws
     *  from the call that meets it, after waiting for everything in flight.
     *  detect_device() throws std::logic_error between submit() and finish(). */
    void submit(const mimo_batch& batch, float* llr);
    void finish();

    /*! Device to device on `stream` (a cudaStream_t; nullptr for the default stream):
     *  batch.y, batch.h, batch.noise_var and llr are device pointers. Returns without
     *  waiting; check_device_errors() after synchronising reports bad input. */
    void detect_device(const mimo_batch& batch, float* llr, void* stream);
    /*! Throws std::invalid_argument if the kernels since the last call met bad input. */
    void check_device_errors(void* stream);

    /*! psd's vectors whose search stopped at its node budget (detector_params'
     *  psd.max_nodes), over the calls finished so far: detect(), finish(), and
     *  detect_device() once check_device_errors() has read them. */
    std::uint64_t search_budget_hits() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
