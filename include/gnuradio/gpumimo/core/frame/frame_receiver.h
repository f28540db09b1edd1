/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_RECEIVER_H
#define INCLUDED_GPUMIMO_CORE_FRAME_RECEIVER_H

#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/host_device.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! Where a frame starts and how far off its carrier is (find_frame). */
struct frame_sync_result {
    bool found = false;
    /*! Estimated first sample of the preamble's cyclic prefix, less a quarter of the
     *  prefix (start the FFT windows early rather than late). */
    std::size_t start = 0;
    /*! Estimated carrier frequency offset, cycles per sample (within +-1/fft_len). */
    double cfo = 0;
    /*! The timing metric at the estimate, 0..1 (1: the halves match perfectly). */
    double metric = 0;
    /*! Where the estimate comes from: the middle of the metric's plateau (the window's
     *  position; start is this less three quarters of the first prefix). */
    std::size_t plateau_middle = 0;
};

/*! search_step's threshold argument that asks for sync_threshold(frame, antennas). */
constexpr double automatic_threshold = 0;

/*!
 * \brief The synchroniser's detection threshold unless told otherwise: the lowest that
 * keeps false frames below 1e-14 per searched position, clamped to [0.1, 0.7].
 * In white noise the metric M (find_frame) is at most the squared correlation of the
 * window's two halves, K complex Gaussian pairs, which exceeds t with probability
 * (1 - t)^(K - 1); so t = 1 - 1e-14^(1 / (K - 1)). K = N/2 x min(antennas, streams):
 * noise gives N/2 independent pairs per antenna, but a frame's payload of Nt streams
 * received on more antennas through a flat channel is only Nt-dimensional, and the
 * search runs over payload too (at start-up, after a missed preamble). The metric of a
 * preamble received at per-antenna SNR S is about (S / (1 + S))^2, so a lower threshold
 * finds frames at lower SNR: 0.40 for the small preset's 2 streams on 4 antennas, where
 * a fixed 0.7 missed most frames below 7 dB. The floor 0.1 keeps a signal's own weak
 * half-symbol structure (a DC offset, the tracking pilots on even carriers) from opening
 * searches; the ceiling 0.7 is the fixed threshold of before (1 stream of the small
 * preset asks 0.65). docs/frame.md.
 */
double sync_threshold(const frame_format& frame, int antennas);

/*!
 * \brief Finds the first frame in rx (antennas streams of n samples, antenna-major) by
 * the preamble's half-symbol repetition (Schmidl and Cox), summed over the antennas:
 * M(d) = |sum_r sum_m conj(x_r[d+m]) x_r[d+m+N/2]|^2 / R(d)^2 with m < N/2 and R(d) =
 * sum_r sum_{m < N} |x_r[d+m]|^2 / 2, the energy of both halves (Schmidl and Cox's second
 * half alone lets M exceed 1 where a frame's end meets a quiet gap), both centred: each
 * antenna's mean over either half taken out (the samples less their half's mean), so that
 * a DC offset, which repeats at every lag, does not hold M up between frames.
 * The first d with M >= threshold (in (0, 1]; sync_threshold gives the synchroniser's)
 * opens a search of one symbol; the estimate is the
 * middle of the plateau the cyclic prefix gives (M within 90% of its peak) less three
 * quarters of the prefix, and the carrier offset the phase of the sum there over pi N.
 * found is false when M never reaches the threshold. docs/frame.md.
 */
frame_sync_result find_frame(const numerology& num,
                             const std::complex<float>* rx,
                             int antennas,
                             std::size_t n,
                             double threshold);
/*! The same with antenna a's n samples at rx[a] (a block's input buffers, read in
 *  place). Non-finite samples count as zeros in both forms. */
frame_sync_result find_frame(const numerology& num,
                             const std::complex<float>* const* rx,
                             int antennas,
                             std::size_t n,
                             double threshold);

/*! How much a streaming search keeps back when it finds nothing: two preamble symbols
 *  with their prefixes, so that a preamble cut by the window's end is whole in the next
 *  window. */
std::size_t search_margin(const frame_format& frame);
/*! The longest window a streaming search step looks at: a frame and two margins (the
 *  cost stays per frame, not per frame times the input on offer; a frame right after
 *  the last one, a stream's usual case, is whole in it). */
std::size_t search_window(const frame_format& frame);

/*!
 * \brief The preamble's repetition ends with its symbol; a tone's, or any periodic
 * signal's, goes on (a DC offset the centred metric does not see at all). A candidate
 * whose metric, averaged over the positions one symbol (N and the first prefix) after
 * its plateau's middle, +- a quarter of the prefix, is at least sync_repeat_ratio times
 * its own is not a frame: the first pilot block there fills every carrier and repeats
 * nothing (a metric near 0), while a CW tone, a half symbol repeated or a tone over DC
 * gave a "frame" every frame length. repeat_after: that average (the window holds it:
 * mid + N + cp + cp / 4 + N <= n).
 */
constexpr double sync_repeat_ratio = 0.5;
double repeat_after(const numerology& num,
                    const std::complex<float>* const* rx,
                    int antennas,
                    std::size_t mid);
/*! The test itself: repeat_after at a found candidate's plateau middle is at least
 *  sync_repeat_ratio times its metric (search_step's, and any chain that must refuse
 *  what it refuses). */
bool repeats_on(const numerology& num,
                const std::complex<float>* const* rx,
                int antennas,
                const frame_sync_result& sync);

/*! One step of a search through a stream (search_step). */
struct frame_search_step {
    frame_sync_result sync;
    /*! A whole frame starts at sync.start in the window. */
    bool whole = false;
    /*! A candidate refused as repeating on after its symbol (repeat_after): not a frame,
     *  the search goes on a symbol after its start. */
    bool repeating = false;
    /*! Samples the search moves on: past the frame when whole; to a margin before the
     *  preamble when its frame runs past the window (searched again with all of it in
     *  view); a symbol past a repeating candidate's start; by the window less a margin
     *  when nothing was found. Always > 0. */
    std::size_t advance = 0;
};

/*!
 * \brief The synchroniser's search through a stream, one window at a time (the loop of
 * mimo_ofdm_sync, and of anything that must find the same frames): find_frame over n
 * samples of every antenna (antenna-major), n from frame.samples() + search_margin() to
 * search_window(), and where to go on from there. threshold: find_frame's, or
 * automatic_threshold (the default) for sync_threshold(frame, antennas).
 */
frame_search_step search_step(const frame_format& frame,
                              const std::complex<float>* window,
                              int antennas,
                              std::size_t n,
                              double threshold = automatic_threshold);
/*! The same with antenna a's window at window[a]. */
frame_search_step search_step(const frame_format& frame,
                              const std::complex<float>* const* window,
                              int antennas,
                              std::size_t n,
                              double threshold = automatic_threshold);

/*!
 * \brief The carrier offset left in a frame after find_frame's correction, from the
 * cyclic prefixes of all its symbols: each prefix sample repeats N samples later, so the
 * phase of sum_r sum_symbols sum_m conj(x_r[t_m]) x_r[t_m + N] over every prefix's
 * samples from three eighths to seven eighths of its length (after the channel's delay
 * spread) is 2 pi N times the residual offset (cycles per sample, within +-1/(2N)).
 * find_frame's half-symbol estimate leaves enough (a few thousandths of the carrier
 * spacing at 20 dB) to turn 16-QAM's outer points across a decision boundary by the end
 * of a long frame; the prefixes hold several times the samples at twice the lag.
 * rx: the frame's frame.samples() samples per antenna (antenna-major), starting where
 * find_frame put the start (a quarter of the first prefix early).
 */
double residual_cfo(const frame_format& frame, const std::complex<float>* rx, int antennas);

/*! The frame-relative positions t whose products conj(x[t]) x[t + N] residual_cfo sums:
 *  every prefix's samples from three eighths to seven eighths of its length, counted
 *  from a quarter of the first prefix into each symbol's slot (find_frame's early
 *  start), as long as t + N is inside the frame. */
std::vector<int> prefix_sample_positions(const frame_format& frame);

/*!
 * \brief The receiver's IQ imbalance, learnt over the frames (docs/frame.md): a front
 * end's y = mu s + nu conj(s) is improper, E[y^2] = 2 mu nu E|s|^2, where the signal s
 * (random data on carriers around an empty DC carrier, and noise) is not. The sums look
 * at the payload symbols only, fft_len samples of each (iq_learning_windows): the
 * preamble and the pilots are the same in every frame, and on a still channel their
 * sums of y^2 add up frame after frame as an imbalance's would. Per antenna, over every
 * usable frame with a forgetting of iq_forgetting a frame: A = sum y^2, B = sum |y|^2,
 * and D = sum over the windows of |A_w|^2 (A_w a window's sum of y^2; weighted by the
 * square of the forgetting). A_w are independent from window to window and, the data
 * random, as likely -A_w as A_w, so with a proper signal D is what |A|^2 is on average,
 * whatever the correlation of the samples inside a window (a prefix repeats its
 * symbol's end, the preamble its first half: 16 times a sum of |y|^4 was exceeded on a
 * proper signal in 2 of 68 runs of the 40-frame test, tests/frame/test_frame_receiver.cc). Where |A|^2 exceeds iq_significance times D the imbalance
 * is taken as real and the frame's samples are compensated before the carrier offset
 * comes off, y - beta conj(y) with beta = A / (2 B) (= nu / conj(mu) to second order);
 * otherwise beta = 0 and nothing changes. Each frame uses what the frames before it
 * taught (its own samples join after, if usable).
 */
struct iq_state {
    double a_re = 0, a_im = 0, b = 0, d = 0;
};
constexpr double iq_forgetting = 0.99; // about a hundred frames' memory
// |A|^2 / D beyond 25: for a proper signal about a chi-square of one degree of freedom at
// worst (A's spread all in one direction, as on a still channel), 6e-7 of the frames;
// e^-25 where A is circular.
constexpr double iq_significance = 25;

/*! Where the IQ sums look: the start (from the frame's) of each payload symbol's
 *  window, fft_len samples from half the symbol's prefix into its slot (a whole period
 *  of the symbol, so that a BPSK payload's y^2 sums to zero on average as QAM's does). */
std::vector<std::uint32_t> iq_learning_windows(const frame_format& frame);

/*! beta from the state (0 where not significant), as {re, im}. */
GPUMIMO_HOST_DEVICE inline void iq_beta(const iq_state& s, double* beta_re, double* beta_im)
{
    const double a2 = s.a_re * s.a_re + s.a_im * s.a_im;
    const bool real = s.b > 0 && s.d > 0 && a2 > iq_significance * s.d;
    *beta_re = real ? s.a_re / (2 * s.b) : 0.0;
    *beta_im = real ? s.a_im / (2 * s.b) : 0.0;
}
/*! The state after a usable frame whose sums are a (complex), b and d. */
GPUMIMO_HOST_DEVICE inline void iq_learn(iq_state& s, double a_re, double a_im, double b, double d)
{
    s.a_re = iq_forgetting * s.a_re + a_re;
    s.a_im = iq_forgetting * s.a_im + a_im;
    s.b = iq_forgetting * s.b + b;
    s.d = iq_forgetting * iq_forgetting * s.d + d;
}

/*!
 * \brief Takes a found frame's carrier offset off: find_frame's coarse estimate plus the
 * residual the prefixes show after it (residual_cfo of the coarsely corrected frame,
 * found from the original samples: the coarse rotation only turns the prefixes' sum),
 * applied in one rotation; before it the receiver's IQ imbalance, as iq_state learns it
 * over the frames (the state is this object's: one corrector per stream of frames).
 * Holds its scratch buffer: correct() allocates nothing after its first call (for the
 * same number of antennas).
 */
class frame_corrector
{
public:
    explicit frame_corrector(const frame_format& frame);
    /*! in[a]: antenna a's frame.samples() samples from the frame's start (find_frame's
     *  start); out[a]: where the corrected ones go (may not alias in[a]). Returns the
     *  total offset, cycles per sample. */
    double correct(const std::complex<float>* const* in,
                   int antennas,
                   double coarse_cfo,
                   std::complex<float>* const* out);
    /*! Whether every input sample of the last correct() was usable (finite and within
     *  +-max_sample_magnitude, core/limits.h; if not, its output
     *  and offset are not to be used: the frame is damaged). */
    bool last_input_finite() const { return d_finite; }
    /*! The IQ compensation the last correct() applied to antenna a (0: none). */
    std::complex<double> last_iq_beta(int a) const { return d_beta.at(std::size_t(a)); }

private:
    void make_phasors(double cfo);
    frame_format d_frame;
    std::vector<iq_state> d_iq;            // per antenna
    std::vector<std::complex<double>> d_beta; // the last frame's, per antenna
    std::vector<double> d_sums; // the last frame's a_re, a_im, b, d per antenna
    std::vector<std::uint32_t> d_iq_windows; // iq_learning_windows(d_frame)
    std::vector<int> d_prefix;               // prefix_sample_positions(d_frame)
    std::vector<std::complex<float>> d_phasors;
    bool d_finite = true;
};

/*! A frame's channel estimates, its noise variance and what the detectors take as noise. */
struct channel_estimate {
    int rx = 0, tx = 0, carriers = 0;
    channel_estimator method = channel_estimator::lmmse;
    /*! [carrier][rx][tx]: one row-major nr x nt matrix per used carrier, the layout of
     *  core::mimo_batch's h. */
    std::vector<std::complex<float>> h;
    /*! E|n|^2 per carrier and antenna, from the preamble's empty carriers, at least
     *  the signal's power divided by max_estimated_snr. */
    float noise_var = 0;
    /*! Per carrier: each element's estimation-error variance (channel_smoother). */
    std::vector<float> error_var;
    /*! Per carrier: noise_var + tx * error_var, the detectors' N0 (one matrix per
     *  carrier), so that their LLRs count the estimate's error as noise. */
    std::vector<float> noise_eff;
};

/*! The highest SNR a channel estimate reports: the noise variance is floored at the
 *  received payload power (per antenna, as the pilots measure it) divided by this, 60 dB
 *  (beyond any radio's dynamic range). A noise-free input (a transmitter wired straight
 *  to the receiver) then gives large, finite LLRs instead of an unusable N0 = 0. */
constexpr double max_estimated_snr = 1e6;

/*!
 * From the frame's first 1 + Nt symbols after the receiver's forward OFDM FFT
 * (numerology::fft_config), [rx][symbol][used carrier], antenna r's symbols starting at
 * carriers_rx + r * symbols_per_antenna * used carriers (symbols_per_antenna 0: 1 + Nt,
 * just those symbols; frame.symbols(): the whole frame's carriers): column k of H on
 * carrier c is first (1/Nt) sum_s conj(pilot_cover(Nt, s, k)) Y_{1+s}(c) / P_k(c) on
 * every antenna (least squares: the covers are orthogonal; error variance N0 / Nt),
 * then smoothed over frequency by `smoother` (its estimator; it must be of frame's
 * numerology); the noise variance N0 is the mean power on the preamble's odd carriers,
 * which carry nothing, floored at the pilot symbols' mean received power over
 * max_estimated_snr. `block`: which pilot block (frame_format::pilot_blocks(), the
 * Nt symbols from frame.pilot_block_start(block) instead of 1..Nt; symbols_per_antenna
 * must then reach them). std::invalid_argument for bad arguments.
 */
channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna,
                                  channel_smoother& smoother,
                                  int block = 0);
class smoothing_engine;
/*! The same with a smoothing engine (core/frame/estimation/smoothing_engine.h: the smoothing on the
 *  CPU or the GPU), made for this frame's numerology, rx, streams and the preamble's
 *  empty carriers on rx antennas as its noise samples. */
channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna,
                                  smoothing_engine& smoother,
                                  int block = 0);
/*! Several frames' estimate_channel() with one smoothing engine, their smoothing in
 *  smoothing_engine::smooth_frames() calls of up to its max_frames() frames (on the GPU
 *  one round trip each): frame f's carriers at carriers_rx[f], as estimate_channel takes
 *  them; its estimate into estimates[f] (grown to `frames` when shorter, never shrunk:
 *  kept between calls, its estimates' storage is reused). Each estimate equals that
 *  frame's estimate_channel() but for the smoothing's rounding on the GPU. */
void estimate_channels(const frame_format& frame,
                       const std::complex<float>* const* carriers_rx,
                       std::size_t frames,
                       int rx,
                       int symbols_per_antenna,
                       smoothing_engine& smoother,
                       std::vector<channel_estimate>& estimates);
/*! The same with a smoother of `method` made for this call (its set-up costs U L^2:
 *  hold a channel_smoother to estimate many frames). */
channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna = 0,
                                  channel_estimator method = channel_estimator::lmmse);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
