/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_FFTW_OFDM_FFT_H
#define INCLUDED_GPUMIMO_CORE_FFTW_OFDM_FFT_H

#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! Whether this build has the FFTW path (FFTW3 single precision found by CMake); `why`
 *  gets the reason when not. The GNU Radio module always has it (GNU Radio needs FFTW);
 *  a core-only build on a machine without FFTW does not. */
bool fftw_available(std::string* why = nullptr);

/*! The OFDM FFT of ofdm_fft.h on the CPU through FFTW (as GNU Radio's fft blocks), in
 *  float32: the path of the GNU Radio block when there is no GPU. Same semantics as
 *  cpu_ofdm_fft; the plan is made (FFTW_MEASURE) by the constructor, process()
 *  allocates nothing. One call at a time per object. A build without FFTW throws
 *  std::runtime_error at construction. */
class fftw_ofdm_fft
{
public:
    explicit fftw_ofdm_fft(const ofdm_fft_config& config);
    ~fftw_ofdm_fft();
    fftw_ofdm_fft(const fftw_ofdm_fft&) = delete;
    fftw_ofdm_fft& operator=(const fftw_ofdm_fft&) = delete;

    const ofdm_fft_layout& layout() const;
    /*! As cpu_ofdm_fft::process: returns the (channel, symbol) pairs zeroed for
     *  non-finite input. */
    std::size_t process(const ofdm_fft_io& io);

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
