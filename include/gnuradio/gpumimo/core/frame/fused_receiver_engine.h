/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FUSED_RECEIVER_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_FUSED_RECEIVER_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! The fused receiver (OFDM FFT, channel estimation, detection of whole frames) on one
 *  backend: cpu_fused_receiver or gpu_fused_receiver, behind one interface. */
class fused_receiver_engine
{
public:
    virtual ~fused_receiver_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! As cpu_fused_receiver::process(). */
    virtual fused_receiver_report process(const std::complex<float>* const* in,
                                          std::size_t frames,
                                          float* llr,
                                          float* noise_var = nullptr) = 0;
    /*! As cpu_fused_receiver::process_decoded() (the configuration names a code): on
     *  the GPU the LLRs stay on the device and only the information bits come back. */
    virtual fused_receiver_report process_decoded(const std::complex<float>* const* in,
                                                  std::size_t frames,
                                                  std::uint8_t* info,
                                                  fused_decode_report* decoded = nullptr,
                                                  float* noise_var = nullptr) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The fused receiver factory: validates the configuration, makes the engine on
 *  `backend` ("auto", "cpu" or "cuda": choose_backend()) on CUDA device `device`, the
 *  CPU engine always beside a GPU one for the fallback policy (core/engine.h). */
std::unique_ptr<fused_receiver_engine>
make_fused_receiver_engine(const fused_receiver_config& config,
                           const std::string& backend,
                           int device = 0,
                           std::string* fallback_reason = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
