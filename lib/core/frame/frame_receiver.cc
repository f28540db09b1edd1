/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The receiver side of the frame format: Schmidl-Cox synchronisation and least-squares
 * channel estimation (docs/frame.md).
 */
#include "common/complex_product.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
// Antenna a's samples at rx + a * n, as find_frame's pointer form takes them.
std::vector<const std::complex<float>*>
antenna_pointers(const std::complex<float>* rx, int antennas, std::size_t n)
{
    std::vector<const std::complex<float>*> p(std::size_t(std::max(antennas, 0)));
    for (int a = 0; a < antennas; a++)
        p[std::size_t(a)] = rx + std::size_t(a) * n;
    return p;
}
} // namespace

frame_sync_result find_frame(const numerology& num,
                             const std::complex<float>* rx,
                             int antennas,
                             std::size_t n,
                             double threshold)
{
    return find_frame(num, antenna_pointers(rx, antennas, n).data(), antennas, n, threshold);
}

double sync_threshold(const frame_format& frame, int antennas)
{
    if (antennas < 1 || frame.streams < 1)
        throw std::invalid_argument("sync_threshold: antennas and streams must be >= 1");
    const double pairs = double(std::min(antennas, frame.streams)) * double(frame.num.fft_len / 2);
    const double false_per_position = 1e-14;
    const double t = pairs > 1 ? 1 - std::pow(false_per_position, 1 / (pairs - 1)) : 1.0;
    return std::clamp(t, 0.1, 0.7);
}

namespace {

// find_frame's metric at position d and on by sliding sums over m = 0 .. N/2-1, all
// antennas. R is half the energy of the whole window, not Schmidl and Cox's energy of
// its second half: that one makes M soar where a frame's end meets a quiet gap (second
// half noise, first half signal); with both halves |P| <= R, so M <= 1 everywhere and 1
// only where they repeat. Samples outside the input range (NaN, Inf, beyond +-1e15:
// core/limits.h) count as zeros (the running sums would carry them on, or lose
// everything else to rounding once they leave), the same on the way in and out of the
// sums. Each antenna's sum over either half, s1 and s2: the halves' means taken out of
// P and R (centred_p, centred_r) make the metric blind to a DC offset, which repeats at
// every lag and held M near 1 between frames (|dc|^4 / (|dc|^2 + N0)^2: 0.83 at 30 dB
// with the DC 20 dB below the signal), so that a frame after a gap was found in the
// gap. The preamble, whose DC carrier is empty, has a mean of 0 over either half: its
// metric does not change.
class sliding_metric
{
public:
    sliding_metric(std::size_t N, const std::complex<float>* const* rx, int antennas, std::size_t d)
        : d_rx(rx), d_antennas(antennas), d_half(N / 2), d_d(d), d_s1(std::size_t(antennas), 0.0),
          d_s2(std::size_t(antennas), 0.0)
    {
        for (int a = 0; a < antennas; a++)
            for (std::size_t m = 0; m < d_half; m++) {
                d_p += conj_mul(sample(a, d + m), sample(a, d + m + d_half));
                d_r += 0.5 * (std::norm(sample(a, d + m)) + std::norm(sample(a, d + m + d_half)));
                d_s1[std::size_t(a)] += sample(a, d + m);
                d_s2[std::size_t(a)] += sample(a, d + m + d_half);
            }
    }
    void slide() // from position d to d + 1
    {
        const std::size_t d = d_d++, N = 2 * d_half;
        for (int a = 0; a < d_antennas; a++) {
            d_p += conj_mul(sample(a, d + d_half), sample(a, d + N)) - conj_mul(sample(a, d), sample(a, d + d_half));
            d_r += 0.5 * (std::norm(sample(a, d + N)) - std::norm(sample(a, d)));
            d_s1[std::size_t(a)] += sample(a, d + d_half) - sample(a, d);
            d_s2[std::size_t(a)] += sample(a, d + N) - sample(a, d + d_half);
        }
    }
    std::complex<double> centred_p() const // sum_m conj(x[d+m] - mean1) (x[d+m+N/2] - mean2)
    {
        std::complex<double> c = d_p;
        for (int a = 0; a < d_antennas; a++)
            c -= conj_mul(d_s1[std::size_t(a)], d_s2[std::size_t(a)]) / double(d_half);
        return c;
    }
    double centred_r() const // the halves' energies about their means, over 2
    {
        double c = d_r;
        for (int a = 0; a < d_antennas; a++)
            c -= (std::norm(d_s1[std::size_t(a)]) + std::norm(d_s2[std::size_t(a)])) / (2.0 * double(d_half));
        return c;
    }
    static double metric_of(std::complex<double> pv, double rv) { return rv > 0 ? std::norm(pv) / (rv * rv) : 0.0; }
    double metric() const { return metric_of(centred_p(), centred_r()); }

private:
    std::complex<double> sample(int a, std::size_t i) const
    {
        const std::complex<float> x = d_rx[a][i];
        return is_usable(x) ? std::complex<double>(x) : std::complex<double>(0);
    }
    const std::complex<float>* const* d_rx;
    const int d_antennas;
    const std::size_t d_half;
    std::size_t d_d;
    std::complex<double> d_p = 0;
    double d_r = 0;
    std::vector<std::complex<double>> d_s1, d_s2;
};

} // namespace

frame_sync_result find_frame(const numerology& num,
                             const std::complex<float>* const* rx,
                             int antennas,
                             std::size_t n,
                             double threshold)
{
    if (antennas < 1)
        throw std::invalid_argument("find_frame: antennas must be >= 1");
    if (!(threshold > 0 && threshold <= 1))
        throw std::invalid_argument("find_frame: threshold must be in (0, 1]");
    const std::size_t N = num.fft_len, half = N / 2;
    const int cp0 = num.cp_lengths.empty() ? 0 : num.cp_lengths[0];
    frame_sync_result result;
    if (n < N)
        return result;
    const std::size_t positions = n - N + 1;
    // The sums slide only as far as they are needed: to the first crossing and one
    // symbol on (a stream's next preamble is usually near the start of the window).
    sliding_metric sums(N, rx, antennas, 0);
    auto metric_of = sliding_metric::metric_of;
    std::size_t first = 0;
    while (sums.metric() < threshold) {
        if (++first == positions)
            return result;
        sums.slide();
    }
    // P and R over the symbol after the first crossing, where the peak is sought.
    const std::size_t end = std::min(positions, first + N);
    std::vector<std::complex<double>> P(end - first);
    std::vector<double> R(end - first);
    for (std::size_t d = first; d < end; d++) {
        P[d - first] = sums.centred_p();
        R[d - first] = sums.centred_r();
        if (d + 1 < end)
            sums.slide();
    }
    auto metric = [&](std::size_t d) { return metric_of(P[d - first], R[d - first]); };
    std::size_t peak = first;
    for (std::size_t d = first; d < end; d++)
        if (metric(d) > metric(peak))
            peak = d;
    // The plateau around the peak: the prefix's positions all see matching halves.
    std::size_t lo = peak, hi = peak;
    while (lo > first && metric(lo - 1) >= 0.9 * metric(peak))
        lo--;
    while (hi + 1 < end && metric(hi + 1) >= 0.9 * metric(peak))
        hi++;
    const std::size_t mid = (lo + hi) / 2;
    result.found = true;
    result.metric = metric(mid);
    result.plateau_middle = mid;
    result.cfo = std::arg(P[mid - first]) / (2 * M_PI * double(half));
    // Biased early by a quarter of the prefix: a window that starts inside the prefix
    // only turns the carriers' phases (channel estimation takes that in), one that starts
    // late takes in the next symbol; the plateau's edges blur late in noise.
    const std::size_t back = std::size_t(cp0 / 2 + cp0 / 4);
    result.start = mid > back ? mid - back : 0;
    return result;
}

double repeat_after(const numerology& num, const std::complex<float>* const* rx, int antennas, std::size_t mid)
{
    const std::size_t N = std::size_t(num.fft_len), cp = std::size_t(num.cp_lengths[0]), w = cp / 4;
    const std::size_t from = mid + N + cp - w, count = 2 * w + 1;
    sliding_metric sums(N, rx, antennas, from);
    double total = 0;
    for (std::size_t i = 0; i < count; i++) {
        total += sums.metric();
        if (i + 1 < count)
            sums.slide();
    }
    return total / double(count);
}

bool repeats_on(const numerology& num,
                const std::complex<float>* const* rx,
                int antennas,
                const frame_sync_result& sync)
{
    return repeat_after(num, rx, antennas, sync.plateau_middle) >= sync_repeat_ratio * sync.metric;
}

std::size_t search_margin(const frame_format& frame)
{
    return 2 * std::size_t(frame.num.fft_len + frame.num.cp_lengths[0]);
}

std::size_t search_window(const frame_format& frame)
{
    return frame.samples() + 2 * search_margin(frame);
}

frame_search_step search_step(const frame_format& frame,
                              const std::complex<float>* window,
                              int antennas,
                              std::size_t n,
                              double threshold)
{
    return search_step(frame, antenna_pointers(window, antennas, n).data(), antennas, n, threshold);
}

frame_search_step search_step(const frame_format& frame,
                              const std::complex<float>* const* window,
                              int antennas,
                              std::size_t n,
                              double threshold)
{
    const std::size_t len = frame.samples(), margin = search_margin(frame);
    if (n < len + margin || n > search_window(frame))
        throw std::invalid_argument("search_step: the window must hold a frame and a "
                                    "margin, and at most a frame and two margins");
    frame_search_step step;
    if (!(threshold >= 0 && threshold <= 1))
        throw std::invalid_argument(
            "search_step: threshold must be in (0, 1], or automatic_threshold (0)");
    if (threshold == automatic_threshold)
        threshold = sync_threshold(frame, antennas);
    step.sync = find_frame(frame.num, window, antennas, n, threshold);
    if (!step.sync.found) // keep the margin: a preamble may be cut by the end
        step.advance = n - margin;
    else if (step.sync.start + len > n) // > 0: start > n - len >= margin
        step.advance = step.sync.start - margin;
    else if (repeats_on(frame.num, window, antennas, step.sync)) {
        step.repeating = true;
        step.advance = step.sync.start + std::size_t(frame.num.fft_len + frame.num.cp_lengths[0]);
    } else {
        step.whole = true;
        step.advance = step.sync.start + len;
    }
    return step;
}

std::vector<int> prefix_sample_positions(const frame_format& frame)
{
    const std::size_t N = frame.num.fft_len, n = frame.samples();
    const std::vector<int>& cps = frame.num.cp_lengths;
    // find_frame starts a quarter of the first prefix early (and a little more in
    // practice): every symbol's prefix begins about that much into its slot.
    const std::size_t early = std::size_t(cps[0] / 4);
    std::vector<int> positions;
    std::size_t slot = 0;
    for (int s = 0; s < frame.symbols(); s++) {
        const std::size_t cp = std::size_t(cps[std::size_t(s) % cps.size()]);
        // Not the prefix's start: there the channel's delay spread still carries the
        // previous symbol's tail (inter-symbol interference), and with the middle half
        // the estimate at 40 dB erred by 1e-3 carrier spacings (2x4, 3 taps), enough to
        // turn 16-QAM across a decision boundary by the end of a 10-symbol payload (from
        // half to seven eighths: clean at 40 dB but fewer samples, 0.5 dB more loss at
        // 13 dB); the last eighth is left as a margin for a timing estimate a little
        // late.
        for (std::size_t m = 3 * cp / 8; m < cp - cp / 8; m++) {
            const std::size_t t = slot + early + m;
            if (t + N >= n)
                break;
            positions.push_back(int(t));
        }
        slot += cp + N;
    }
    return positions;
}

namespace {
// sum_r sum_t conj(x_r[t]) x_r[t + N] over prefix_sample_positions; antenna r's frame at
// rx[r].
std::complex<double> prefix_correlation(const std::vector<int>& positions,
                                        std::size_t N,
                                        const std::complex<float>* const* rx,
                                        int antennas)
{
    std::complex<double> acc = 0;
    for (const int t : positions)
        for (int a = 0; a < antennas; a++)
            acc += conj_mul(std::complex<double>(rx[a][t]), std::complex<double>(rx[a][t + N]));
    return acc;
}
} // namespace

double residual_cfo(const frame_format& frame, const std::complex<float>* rx, int antennas)
{
    return std::arg(prefix_correlation(prefix_sample_positions(frame),
                                       std::size_t(frame.num.fft_len),
                                       antenna_pointers(rx, antennas, frame.samples()).data(),
                                       antennas)) /
           (2 * M_PI * double(frame.num.fft_len));
}

std::vector<std::uint32_t> iq_learning_windows(const frame_format& frame)
{
    std::vector<std::uint32_t> windows;
    const std::vector<int>& cps = frame.num.cp_lengths;
    std::size_t slot = 0; // symbol s's slot starts here
    for (int s = 0; s < frame.symbols(); s++) {
        const int cp = cps.empty() ? 0 : cps[std::size_t(s) % cps.size()];
        if (frame.is_payload_symbol(s))
            windows.push_back(std::uint32_t(slot + std::size_t(cp / 2)));
        slot += std::size_t(frame.num.fft_len + cp);
    }
    return windows;
}

frame_corrector::frame_corrector(const frame_format& frame) : d_frame(frame)
{
    d_frame.validate();
    d_prefix = prefix_sample_positions(d_frame);
    d_iq_windows = iq_learning_windows(d_frame);
}

// e^{-2 pi i cfo t} over the frame, once for all antennas: a rotation by recurrence in
// double (a frame's 10^4..10^5 steps add a few 1e-12 of phase and magnitude error; a
// polar() per sample cost more than the rest of the synchronisation together).
void frame_corrector::make_phasors(double cfo)
{
    const std::size_t n = d_frame.samples();
    d_phasors.resize(n);
    const std::complex<double> step = std::polar(1.0, -2 * M_PI * cfo);
    std::complex<double> w = 1;
    for (std::size_t t = 0; t < n; t++) {
        d_phasors[t] = std::complex<float>(w);
        w = mul(w, step);
    }
}

double frame_corrector::correct(const std::complex<float>* const* in,
                                int antennas,
                                double coarse_cfo,
                                std::complex<float>* const* out)
{
    if (antennas < 1)
        throw std::invalid_argument("frame_corrector: antennas must be >= 1");
    const std::size_t n = d_frame.samples(), N = d_frame.num.fft_len;
    // residual_cfo of the coarsely corrected frame without correcting it first: the
    // coarse rotation turns every product conj(x[t]) x[t + N] by the same
    // e^{-2 pi i coarse N}, so it turns their sum by that.
    const std::complex<double> turn = std::polar(1.0, -2 * M_PI * coarse_cfo * double(N));
    const double residual =
        std::arg(mul(prefix_correlation(d_prefix, N, in, antennas), turn)) / (2 * M_PI * double(N));
    const double cfo = coarse_cfo + residual;
    make_phasors(cfo);
    // The IQ imbalance: each antenna's beta from the frames before this one; this
    // frame's sums (over its raw samples, in double) join the state after, if usable.
    if (d_iq.size() != std::size_t(antennas)) {
        d_iq.assign(std::size_t(antennas), iq_state());
        d_beta.assign(std::size_t(antennas), 0.0);
    }
    d_sums.assign(std::size_t(antennas) * 4, 0.0);
    for (int a = 0; a < antennas; a++) {
        double br, bi;
        iq_beta(d_iq[std::size_t(a)], &br, &bi);
        d_beta[std::size_t(a)] = { br, bi };
        double* s = &d_sums[std::size_t(a) * 4];
        for (std::uint32_t w : d_iq_windows) {
            double wr = 0, wi = 0; // the window's sum of y^2
            for (std::size_t t = w; t < w + N; t++) {
                const double xr = in[a][t].real(), xi = in[a][t].imag(),
                             p = xr * xr + xi * xi;
                wr += xr * xr - xi * xi;
                wi += 2 * xr * xi;
                s[2] += p;
            }
            s[0] += wr;
            s[1] += wi;
            s[3] += wr * wr + wi * wi;
        }
    }
    // (x * k) * 0 is 0 for |x| <= FLT_MAX / k and NaN beyond (x * k overflows to Inf) or
    // for Inf or NaN: with k = FLT_MAX / max_sample_magnitude one sum per antenna tells
    // whether any sample was outside the input range (core/limits.h), in the same pass
    // (and vectorised with it: a max of magnitudes instead cost 37% of this loop).
    constexpr float k = FLT_MAX / max_sample_magnitude * (1.0f - 1e-6f);
    float poison = 0;
    for (int a = 0; a < antennas; a++) {
        const std::complex<float>* x = in[a];
        std::complex<float>* y = out[a];
        float sum = 0;
        const std::complex<double> beta = d_beta[std::size_t(a)];
        if (beta == 0.0) {
            for (std::size_t t = 0; t < n; t++) {
                y[t] = mul(x[t], d_phasors[t]);
                sum += (x[t].real() * k) * 0.f + (x[t].imag() * k) * 0.f;
            }
        } else { // y - beta conj(y), then the rotation
            const float br = float(beta.real()), bi = float(beta.imag());
            for (std::size_t t = 0; t < n; t++) {
                const float xr = x[t].real(), xi = x[t].imag();
                const std::complex<float> c(xr - (br * xr + bi * xi), xi - (bi * xr - br * xi));
                y[t] = mul(c, d_phasors[t]);
                sum += (xr * k) * 0.f + (xi * k) * 0.f;
            }
        }
        poison += sum;
    }
    d_finite = poison == 0.f;
    if (d_finite)
        for (int a = 0; a < antennas; a++) {
            const double* s = &d_sums[std::size_t(a) * 4];
            iq_learn(d_iq[std::size_t(a)], s[0], s[1], s[2], s[3]);
        }
    return cfo;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
