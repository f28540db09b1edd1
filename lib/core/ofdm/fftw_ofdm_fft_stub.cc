/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The FFTW path in a core build without FFTW (the GPU machine has none): it exists,
 * says why it cannot run, and throws if made anyway.
 */
#include <gnuradio/gpumimo/core/ofdm/fftw_ofdm_fft.h>

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
const char* const not_built =
    "gr-gpumimo's core was built without FFTW3 (single precision)";
}

bool fftw_available(std::string* why)
{
    if (why)
        *why = not_built;
    return false;
}

struct fftw_ofdm_fft::impl {
};
fftw_ofdm_fft::fftw_ofdm_fft(const ofdm_fft_config&)
{
    throw std::runtime_error(not_built);
}
fftw_ofdm_fft::~fftw_ofdm_fft() = default;
const ofdm_fft_layout& fftw_ofdm_fft::layout() const
{
    throw std::runtime_error(not_built);
}
std::size_t fftw_ofdm_fft::process(const ofdm_fft_io&)
{
    throw std::runtime_error(not_built);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
