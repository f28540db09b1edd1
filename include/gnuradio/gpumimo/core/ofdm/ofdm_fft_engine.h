/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_OFDM_FFT_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_OFDM_FFT_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! How the GPU engine is laid out (ignored on the CPU). */
struct ofdm_fft_options {
    std::vector<int> devices{ 0 };     // chunks go round these CUDA devices
    std::size_t symbols_per_chunk = 0; // 0: gpu_ofdm_fft's automatic size
};

/*!
 * \brief The OFDM FFT on one backend: FFTW (fftw_ofdm_fft) or, where FFTW is not built,
 * the CPU reference (cpu_ofdm_fft); or cuFFT on the GPU (gpu_ofdm_fft).
 */
class ofdm_fft_engine
{
public:
    virtual ~ofdm_fft_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! What runs, in words, for the log ("FFTW", "cuFFT with ... callbacks: ..."). */
    virtual std::string path() const = 0;
    /*! As cpu_ofdm_fft::process(): the (channel, symbol) pairs zeroed for unusable
     *  input. */
    virtual std::size_t process(const ofdm_fft_io& io) = 0;
    /*! One call in flight, for a caller that fills its next call meanwhile (the
     *  streamed ofdm_fft block): submit() starts process(io) and may return before it
     *  is done; until finish() the buffers must stay valid (io's channel arrays
     *  included) and the outputs are not final. finish() waits for it and returns what
     *  process() would have. One submit() a finish(). The CPU engines do the work in
     *  submit(); the GPU's copies and transforms run while the caller goes on. */
    virtual void submit(const ofdm_fft_io& io) { d_submitted_zeroed = process(io); }
    virtual std::size_t finish() { return std::exchange(d_submitted_zeroed, 0); }
    virtual gpu_fallback* fallback() { return nullptr; }

private:
    std::size_t d_submitted_zeroed = 0; // the CPU's submitted call, done in submit()
};

/*!
 * The OFDM FFT factory: validates the configuration, makes the engine on `backend`
 * ("auto", "cpu" or "cuda": choose_backend()), the CPU engine always beside a GPU one
 * for the fallback policy (core/engine.h).
 */
std::unique_ptr<ofdm_fft_engine> make_ofdm_fft_engine(const ofdm_fft_config& config,
                                                      const std::string& backend,
                                                      const ofdm_fft_options& options = {},
                                                      std::string* fallback_reason = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
