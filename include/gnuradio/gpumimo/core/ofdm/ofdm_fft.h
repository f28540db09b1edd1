/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM (de)modulator's configuration, its sample formats and the layout of one call:
 * C channels of samples, each a run of OFDM symbols. Forward: every symbol of
 * cp + fft_len time samples loses its cyclic prefix, is windowed, transformed, shifted,
 * reduced to its occupied carriers and scaled. Inverse: the occupied carriers of every
 * symbol go into an otherwise empty spectrum, are transformed back, windowed, scaled,
 * and the symbol's last cp samples are copied in front of it.
 *
 * No GNU Radio, Boost or CUDA here; the CPU reference (cpu_ofdm_fft) and the CUDA
 * version (gpu_ofdm_fft.h) share these definitions.
 */
#ifndef INCLUDED_GPUMIMO_CORE_OFDM_FFT_H
#define INCLUDED_GPUMIMO_CORE_OFDM_FFT_H

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! Sample formats at the edges, one complex sample each:
 *  - fc32: two floats.
 *  - fc16: two IEEE binary16 halves (the paper's LittleFloat: 1 sign, 5 exponent and
 *    10 mantissa bits), values beyond +-65504 saturate there.
 *  - sc16: two int16, the value times 32768 (UHD's wire format), saturating.
 *  - sc8: two int8, the value times 128 (UHD's sc8), saturating.
 *  Rounding to fc16, sc16 and sc8 is to nearest, ties to even. */
enum class sample_format { fc32, fc16, sc16, sc8 };
std::size_t bytes_per_sample(sample_format f);
std::string to_string(sample_format f);
/*! "fc32", "fc16", "sc16" or "sc8"; std::invalid_argument otherwise. */
sample_format sample_format_from_string(const std::string& name);

enum class fft_direction { forward, inverse };

/*! Longest cyclic-prefix pattern (symbols before it repeats). */
constexpr int kMaxCpPattern = 64;

struct ofdm_fft_config {
    int fft_len = 64; // 16 .. 65536, any size (the tests take 64 .. 4096)
    /*! Cyclic-prefix length of each symbol, the pattern repeating (LTE normal CP at
     *  2048 points: {160, 144, 144, 144, 144, 144, 144}); empty: no prefix. */
    std::vector<int> cp_lengths;
    fft_direction direction = fft_direction::forward;
    sample_format input = sample_format::fc32;
    sample_format output = sample_format::fc32;
    /*! Empty, or fft_len real taps multiplying the time-domain symbol (forward: after
     *  the prefix is removed; inverse: before the prefix is copied). */
    std::vector<float> window;
    /*! fftshift: carrier index i is FFT bin (i + fft_len - fft_len/2) % fft_len, so
     *  index 0 is the most negative frequency (numpy.fft.fftshift's order). */
    bool shift = false;
    /*! Occupied carriers, indices 0 .. fft_len-1 in the (shifted) order, each at most
     *  once; empty: all fft_len in order. */
    std::vector<int> carriers;
    /*! Multiplies every output value (the transforms are unnormalised: forward
     *  sum x[n] e^{-2 pi i k n / N}, inverse sum X[k] e^{+2 pi i k n / N}). */
    float scale = 1.0f;
    int channels = 1; // C streams, 1 .. 64
};

/*! Throws std::invalid_argument naming the first field that is out of range. */
void validate(const ofdm_fft_config& config);

/*! Sample counts of one call. Symbol g of a stream (counted from its first one, g = 0)
 *  has the prefix cp_lengths[g % period]; a call says at which g it starts. */
class ofdm_fft_layout
{
public:
    explicit ofdm_fft_layout(const ofdm_fft_config& config);

    int fft_len() const { return d_n; }
    int carriers() const { return d_ncar; }
    int cp_period() const { return int(d_cp.size()); }
    int cp_of(std::size_t symbol) const { return d_cp[symbol % d_cp.size()]; }
    /*! The pattern's longest prefix (a symbol's most time samples: fft_len + this). */
    int longest_cp() const { return *std::max_element(d_cp.begin(), d_cp.end()); }
    /*! Time samples of nsym symbols starting at symbol `first`, per channel. */
    std::size_t time_samples(std::size_t first, std::size_t nsym) const;
    /*! Offset of symbol first + s from the start of symbol first (time samples). */
    std::size_t time_offset(std::size_t first, std::size_t s) const
    {
        return time_samples(first, s);
    }
    std::size_t carrier_samples(std::size_t nsym) const { return nsym * d_ncar; }
    std::size_t in_samples(std::size_t first, std::size_t nsym) const;
    std::size_t out_samples(std::size_t first, std::size_t nsym) const;
    /*! FFT bin of carrier j. */
    int bin_of(int j) const { return d_bins[j]; }
    const std::vector<int>& bins() const { return d_bins; }

private:
    int d_n, d_ncar;
    bool d_forward;
    std::vector<int> d_cp;    // at least one entry (0 without a prefix)
    std::size_t d_period_len; // time samples of one whole pattern
    std::vector<int> d_bins;  // FFT bin of each carrier
};

/*! Conversions of one complex sample, the CPU side of what the GPU kernels do. */
std::complex<float> decode_sample(sample_format f, const void* base, std::size_t index);
void encode_sample(sample_format f, std::complex<float> v, void* base, std::size_t index);
std::uint16_t float_to_half(float x); // round to nearest even, saturating at +-65504
float half_to_float(std::uint16_t h);

/*! One call's buffers. Channel c's input starts at in + c * in_stride samples (of the
 *  input format), its output at out + c * out_stride; or, where in_channels (or
 *  out_channels) is set, at in_channels[c] (out_channels[c]): C separate buffers, as a
 *  GNU Radio block has them, and in (out) and the stride are not used. A channel holds
 *  layout.in_samples(first, nsym) input and layout.out_samples(first, nsym) output
 *  samples. Symbols whose input is not finite (NaN or Inf in fc32 or fc16) come out
 *  as zeros and are counted. */
struct ofdm_fft_io {
    const void* in = nullptr;
    std::size_t in_stride = 0;
    void* out = nullptr;
    std::size_t out_stride = 0;
    std::size_t first_symbol = 0;
    std::size_t nsym = 0;
    const void* const* in_channels = nullptr;
    void* const* out_channels = nullptr;
};
/*! Throws std::invalid_argument on null buffers or strides shorter than a channel. */
void validate_io(const ofdm_fft_layout& layout, int channels, const ofdm_fft_io& io);

/*! Where channel c's input (output) starts, bytes_per_sample being the format's. */
inline const unsigned char*
channel_input(const ofdm_fft_io& io, int c, std::size_t bytes_per_sample)
{
    return io.in_channels ? static_cast<const unsigned char*>(io.in_channels[c])
                          : static_cast<const unsigned char*>(io.in) +
                                c * io.in_stride * bytes_per_sample;
}
inline unsigned char*
channel_output(const ofdm_fft_io& io, int c, std::size_t bytes_per_sample)
{
    return io.out_channels ? static_cast<unsigned char*>(io.out_channels[c])
                           : static_cast<unsigned char*>(io.out) +
                                 c * io.out_stride * bytes_per_sample;
}

/*! The CPU reference: a plain mixed-radix FFT in double precision, one symbol at a time.
 *  Readable, not fast (the GNU Radio block's CPU path uses FFTW). */
class cpu_ofdm_fft
{
public:
    explicit cpu_ofdm_fft(const ofdm_fft_config& config);
    const ofdm_fft_config& config() const { return d_config; }
    const ofdm_fft_layout& layout() const { return d_layout; }
    /*! Returns the number of (channel, symbol) pairs zeroed for non-finite input. */
    std::size_t process(const ofdm_fft_io& io) const;

private:
    ofdm_fft_config d_config;
    ofdm_fft_layout d_layout;
};

/*! The unnormalised DFT of x (sign -1: forward, +1: inverse) by recursive mixed-radix
 *  decimation in time, every twiddle computed directly; any length. */
std::vector<std::complex<double>>
reference_dft(const std::vector<std::complex<double>>& x, int sign);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
