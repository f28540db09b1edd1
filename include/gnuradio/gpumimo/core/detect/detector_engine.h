/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DETECTOR_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_DETECTOR_ENGINE_H

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>
#include <gnuradio/gpumimo/core/engine.h>

#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! What a detector engine is made for. */
struct detector_config {
    detector_spec spec;
    modulation mod = modulation::qpsk;
    int nt = 1;
    int nr = 1;
    int device = 0;                // CUDA device
    bool double_precision = false; // GPU: the float64 kernels (equal to the CPU reference)
};

/*!
 * \brief A MIMO detector on one backend: the CPU reference (cpu_detector) or the CUDA
 * detector (gpu_detector), behind one interface; make_detector_engine() picks it.
 */
class detector_engine
{
public:
    virtual ~detector_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    virtual int bits_per_vector() const = 0;
    /*! cpu_detector::detect() / gpu_detector::detect(); `threads` applies to the CPU. */
    virtual void detect(const mimo_batch& batch, float* llr, unsigned threads = 0) = 0;
    /*! Vectors whose search ran out of its budget, so far (psd's max_nodes; the CPU
     *  engine's and the GPU engine's together). */
    virtual std::uint64_t search_budget_hits() const { return 0; }
    /*! The fallback policy's state (core/engine.h); the factory's engines have one. */
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*!
 * The detector factory: checks the configuration (check_detector()), then makes the
 * engine on `backend` ("auto", "cpu" or "cuda", as choose_backend() decides; the GPU
 * where the registry's GPU entry supports the configuration), with the CPU reference
 * beside a GPU engine for the fallback policy (gpu_fallback). For "auto" on the CPU,
 * *fallback_reason says why not the GPU.
 */
std::unique_ptr<detector_engine> make_detector_engine(const detector_config& config,
                                                      const std::string& backend,
                                                      std::string* fallback_reason = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
