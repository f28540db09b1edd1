/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

modulation parse_modulation(const std::string& name)
{
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    if (n == "qpsk" || n == "4qam")
        return modulation::qpsk;
    if (n == "16qam")
        return modulation::qam16;
    if (n == "64qam")
        return modulation::qam64;
    if (n == "256qam")
        return modulation::qam256;
    if (n == "1024qam")
        return modulation::qam1024;
    if (n == "bpsk")
        return modulation::bpsk;
    if (n == "pi/2-bpsk" || n == "pi2bpsk" || n == "pi2-bpsk")
        return modulation::pi2_bpsk;
    throw std::invalid_argument(
        "unknown modulation " + quoted_text(name) +
        " (expected bpsk, pi/2-bpsk, qpsk, 16qam, 64qam, 256qam or "
        "1024qam)");
}

std::string to_string(modulation mod)
{
    switch (mod) {
    case modulation::qpsk:
        return "qpsk";
    case modulation::qam16:
        return "16qam";
    case modulation::qam64:
        return "64qam";
    case modulation::qam256:
        return "256qam";
    case modulation::qam1024:
        return "1024qam";
    case modulation::bpsk:
        return "bpsk";
    case modulation::pi2_bpsk:
        return "pi/2-bpsk";
    }
    return "?";
}

namespace {

int bits_of(modulation mod)
{
    switch (mod) {
    case modulation::qpsk:
        return 2;
    case modulation::qam16:
        return 4;
    case modulation::qam64:
        return 6;
    case modulation::qam256:
        return 8;
    case modulation::qam1024:
        return 10;
    case modulation::bpsk:
    case modulation::pi2_bpsk:
        return 1;
    }
    throw std::invalid_argument("invalid modulation");
}

// TS 38.211 5.1: the amplitude of one dimension from its bits c_0..c_{h-1}, in units of
// the smallest amplitude: (1-2c_0)(2^{h-1} - (1-2c_1)(2^{h-2} - ...)).
int gray_pam_amplitude(const std::vector<int>& c, std::size_t from)
{
    const int sign = 1 - 2 * c[from];
    const std::size_t remaining = c.size() - from;
    if (remaining == 1)
        return sign;
    return sign * ((1 << (remaining - 1)) - gray_pam_amplitude(c, from + 1));
}

} // namespace

constellation::constellation(modulation mod)
    : d_mod(mod),
      d_bits(bits_of(mod)),
      d_square(mod != modulation::bpsk && mod != modulation::pi2_bpsk),
      d_scale(0.0)
{
    if (!d_square) { // 38.211 5.1.1-5.1.2: (1-2b)(1+j)/sqrt(2), b the one bit
        d_scale = 1.0 / std::sqrt(2.0);
        d_points = { { d_scale, d_scale }, { -d_scale, -d_scale } };
        return;
    }
    const int q = 1 << d_bits;
    const int p = pam_size();
    d_scale = 1.0 / std::sqrt(2.0 * (q - 1) / 3.0);
    d_points.resize(q);
    d_i_level.resize(q);
    d_q_level.resize(q);
    d_from_levels.assign(p * p, -1);
    const int h = d_bits / 2;
    for (int i = 0; i < q; i++) {
        std::vector<int> even(h), odd(h);
        for (int k = 0; k < h; k++) {
            even[k] = bit(i, 2 * k);
            odd[k] = bit(i, 2 * k + 1);
        }
        const int ai = gray_pam_amplitude(even, 0);
        const int aq = gray_pam_amplitude(odd, 0);
        d_points[i] = std::complex<double>(ai * d_scale, aq * d_scale);
        // amplitude (2l - (p-1)) <=> level l = (amplitude + p - 1) / 2
        d_i_level[i] = (ai + p - 1) / 2;
        d_q_level[i] = (aq + p - 1) / 2;
        d_from_levels[d_i_level[i] * p + d_q_level[i]] = i;
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
