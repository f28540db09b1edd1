/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_H
#define INCLUDED_GPUMIMO_CORE_APSM_H

#include <gnuradio/gpumimo/core/constellation.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Parameters of the partially linear APSM multiuser detector
 * (apsm-multiuser-detection-gpu.txt, equations (1) to (9)).
 *
 * A user's filter f lives in the sum of the linear and the Gaussian RKHS, with kernel
 * kappa(u, v) = wL u.v + wG exp(-||u - v||^2 / (2 sigma^2)). Each complex received
 * vector r (M antennas) gives two real training samples r1 = [Re r; Im r] and
 * r2 = [Im r; -Re r] with targets Re b and Im b; the soft symbol is f(r1) + j f(r2).
 * Training walks over the real samples `sample_step` at a time; at each step the last
 * (up to) 2 x window samples are projected onto their hyperslabs
 * {f : |f(r_j) - b_j| <= epsilon} at once, with uniform weights 1 / (their number),
 * from the same filter (equation (8)).
 *
 * Symbols are on the unit-energy constellation (constellation.h).
 *
 * The defaults are gr-gpumimo's, chosen on the over-the-air recordings
 * (docs/apsm.md): the least-squares filter as the linear part's start, a narrow
 * Gaussian kernel on normalised input that corrects it only near training vectors, a
 * hyperslab of +-0.1 so that well-detected training symbols leave the filter alone, and
 * a small linear weight so that projections move the Gaussian part rather than the
 * linear one. With them APSM is at least as good as least squares for every user on
 * every recording; with the library's (library_defaults()) it is not.
 */
struct apsm_params {
    float linear_weight = 0.01f;  //!< wL
    float gaussian_weight = 1.0f; //!< wG
    /*! sigma^2 before scaling: the kernel uses sigma^2 = gaussian_variance * M^2 when
     *  scale_variance_by_antennas (as the public library does: its 0.05 means 12.8
     *  with 16 antennas), else gaussian_variance itself. */
    float gaussian_variance = 0.02f;
    bool scale_variance_by_antennas = false;
    /*! Scale every received vector by 1 / sqrt(mean ||r||^2 of the training vectors)
     *  (learned in training, applied in detection), so that the kernel width and the
     *  linear/Gaussian balance mean the same whatever the receiver's gain: the public
     *  library does not, and its recordings differ by a factor of 700 in power between
     *  the ofdm and time variants. */
    bool normalize_input = true;
    int window = 20;      //!< W in complex symbols: 2W concurrent real projections
    int sample_step = 2;  //!< real samples added per training step (2: one symbol)
    int passes = 1;       //!< sweeps over the training set
    /*! Gaussian dictionary capacity in complex symbols (2x real samples): the dictionary
     *  grows with the training samples, and once full the oldest entry leaves for each
     *  new one. Several passes need the whole training set in it. */
    int dictionary_size = 685;
    float epsilon = 0.1f; //!< hyperslab half-width
    /*! Start the linear part from the least-squares filter of the training set
     *  (ls_filter) instead of zero. */
    bool ls_init = true;
    /*! Sparsification by a norm bound: after every step, if the Gaussian part's RKHS
     *  norm sqrt(wG sum_ij g_i g_j kG(r_i, r_j)) exceeds this, its coefficients are
     *  scaled down to it (the library's normConstraint). 0: off. */
    float norm_bound = 0.0f;
    /*! The linear weight of the tracking projections (apsm_track only): each
     *  correction goes to the linear part and the Gaussian one in the ratio
     *  wT ||x||^2 : wG, so that with wT near wG a drift of the whole channel moves the
     *  linear part, which acts everywhere, and not only Gaussian corrections local to
     *  past symbols (training's wL = 0.01 leaves it almost still). */
    float tracking_linear_weight = 1.0f;
    /*! The least-squares guard (apsm_guard.h): training also holds out the last quarter
     *  of the pilots, trains APSM and least squares on the rest, and gives a user the
     *  least-squares filter of all pilots where it matches the held-out symbols better,
     *  so that the default never does worse than a linear detector where the training
     *  set is too poor a sample for the kernel's corrections (one or two antennas). The
     *  engines (make_apsm_engine) apply it; apsm_train() alone does not. */
    bool ls_guard = true;

    /*! The public library's (libapsm v0.5.0) and the paper's defaults. */
    static apsm_params library_defaults();
    /*! The sigma^2 the kernel uses with M antennas. */
    double kernel_variance(int antennas) const;
};

/*! Bounds on what apsm_params may ask for (memory and time a parameter file or a GRC
 *  field can claim): the dictionary and window at most max_apsm_dictionary entries,
 *  passes at most max_apsm_passes. */
constexpr int max_apsm_dictionary = 1 << 20;
constexpr int max_apsm_passes = 1000;

/*! Throws std::invalid_argument naming the first bad parameter: weights, variance,
 *  epsilon and norm_bound must be finite, the counts within the bounds above. */
void validate(const apsm_params& p);

/*! One user's learned filter: f(r) = wL lin.r + wG sum_i gauss[i] kG(dict[i], r), over
 *  real vectors of dimension 2M. */
struct apsm_filter {
    int antennas = 0;
    /*! Received vectors are multiplied by this before the filter (normalize_input). */
    double input_scale = 1;
    double linear_weight = 0, gaussian_weight = 0, variance = 1;
    std::vector<double> lin;   //!< 2M
    std::vector<float> dict;   //!< entries x 2M, row-major
    std::vector<double> gauss; //!< entries
    /*! Mean |soft - sent|^2 over the training symbols, after training (the LLRs' noise
     *  variance; never below 1e-6). */
    double noise_variance = 1;
    /*! apsm_track's state, carried from call to call so that tracking in pieces equals
     *  tracking in one call: the entries training left (tracked entries come after them
     *  and only they leave a full dictionary; no_tracking until the first call), and
     *  the targets of the window's tracked real samples, oldest first. */
    static constexpr std::size_t no_tracking = ~std::size_t(0);
    std::size_t trained_entries = no_tracking;
    std::vector<double> tracking_targets;

    std::size_t entries() const { return gauss.size(); }
    /*! f at one real vector x of dimension 2M, already multiplied by input_scale. */
    double eval(const float* x) const;
    /*! The Gaussian part's sum, sum_i gauss[i] kG(dict[i], x), without wG. */
    double gaussian_sum(const float* x) const;
};

/*! The real vector pair of a received complex vector, times scale (rounded to float):
 *  r1 = [Re r; Im r] into x1, r2 = [Im r; -Re r] into x2 (2M floats each). */
void apsm_real_pair(const std::complex<float>* r,
                    int antennas,
                    double scale,
                    float* x1,
                    float* x2);

/*!
 * \brief Trains one user's filter, the plain reference of equations (8) and (9).
 *
 * rx: n received vectors of M antennas (row-major, symbol then antenna); sent: the
 * user's n training symbols. Throws std::invalid_argument for bad parameters, sizes or
 * non-finite samples.
 */
apsm_filter apsm_train(const apsm_params& p,
                       const std::complex<float>* rx,
                       std::size_t n,
                       int antennas,
                       const std::complex<float>* sent);

/*! Soft symbols f(r1) + j f(r2) for n received vectors. Non-finite input gives a NaN
 *  soft symbol (soft_to_llr turns it into zero LLRs). */
void apsm_detect(const apsm_filter& f,
                 const std::complex<float>* rx,
                 std::size_t n,
                 std::complex<float>* soft);

/*!
 * \brief Detection that tracks the channel on the data symbols (the paper's Remark 2):
 * decision-directed APSM updates after training.
 *
 * For each of the n received vectors in turn: its soft symbol from the filter as it
 * stands into soft[t]; then its nearest point of `c` taken as the sent symbol, and the
 * filter moved as training moves it (the real samples of the last p.window symbols
 * projected onto their hyperslabs of half-width p.epsilon, uniform weights, one symbol a
 * step, split between the linear and the Gaussian part by p.tracking_linear_weight
 * against p.gaussian_weight; the tracked symbols join the
 * dictionary, which keeps at most p.dictionary_size symbols beyond the trained ones, the
 * oldest tracked one leaving). The trained part of the dictionary stays. A non-finite
 * vector gives a NaN soft symbol and no update. f keeps what it learned and its window
 * (trained_entries, tracking_targets) for the next call: n vectors in pieces give what
 * they give in one call. Wrong decisions teach the filter wrong symbols: tracking helps where the channel
 * drifts and the decisions are mostly right, and costs a little where it does not.
 */
void apsm_track(const apsm_params& p,
                const constellation& c,
                apsm_filter& f,
                const std::complex<float>* rx,
                std::size_t n,
                std::complex<float>* soft);

/*! The linear least-squares filter of the training set, as an apsm_filter with an empty
 *  dictionary (its linear weight 1): w minimising sum_t |w^H r_t - b_t|^2 over complex
 *  linear filters, solved in double through the normal equations. Throws
 *  std::invalid_argument when the training vectors do not span the antennas
 *  (singular). */
apsm_filter ls_train(const std::complex<float>* rx,
                     std::size_t n,
                     int antennas,
                     const std::complex<float>* sent);

/*! Which of a training's n pilot vectors a training on at most m of them takes: all
 *  (0 .. n-1) where m is 0 or at least n, else m evenly spaced ones, index floor(i n / m)
 *  for i < m, so that every part of a frame's pilots (its carriers and symbols) stays in
 *  the set: the GPU trainer takes at most 4096 pilots, and lte20's 6-user frame has 7200
 *  (docs/apsm.md, "Training on a subset of the pilots"). */
std::vector<std::size_t> training_subset(std::size_t n, std::size_t m);

/*! Nearest constellation point index of each soft symbol (NaN: point 0). */
void hard_symbols(const constellation& c,
                  const std::complex<float>* soft,
                  std::size_t n,
                  int* index);

/*!
 * Max-log LLRs of soft symbols z = b + e, e ~ CN(0, noise_variance):
 * LLR_k = (min_{s: b_k=0} |z-s|^2 - min_{s: b_k=1} |z-s|^2) / noise_variance, the
 * core's convention (positive means 1), m per symbol. Non-finite soft symbols give
 * LLRs of 0 (erasures); returns how many symbols that was.
 */
std::size_t soft_to_llr(const constellation& c,
                        const std::complex<float>* soft,
                        std::size_t n,
                        double noise_variance,
                        float* llr);

/*!
 * \brief soft_to_llr one dimension at a time: the same LLRs (to float rounding) in
 * O(m sqrt(Q)) a symbol instead of soft_to_llr's O(m Q), for the blocks (16-QAM about
 * 10x, 1024-QAM about 300x fewer distances).
 *
 * A square QAM's in-phase part carries the even bits and its quadrature part the odd
 * ones (constellation.h), and |z - s|^2 is the sum of the two parts' squared distances:
 * the minimum over the points with b_k = 0 is the minimum over bit k's own dimension's
 * levels with b_k = 0 plus the other dimension's unconstrained minimum, which cancels
 * in the LLR. BPSK and pi/2-BPSK (two points) go through soft_to_llr itself. Tested
 * against soft_to_llr (tests/apsm/test_apsm.cc).
 */
class soft_llr_mapper
{
public:
    explicit soft_llr_mapper(modulation mod);
    /*! As soft_to_llr(constellation(mod), soft, n, noise_variance, llr). */
    std::size_t map(const std::complex<float>* soft,
                    std::size_t n,
                    double noise_variance,
                    float* llr) const;

private:
    constellation d_c;
    int d_levels = 0, d_half = 0;  // PAM levels a dimension, bits a dimension
    std::vector<double> d_amplitude; // [level]
    // The levels where bit j of a dimension (in-phase: b_2j; quadrature: b_2j+1) is 0,
    // then those where it is 1, half of the levels each: [dimension][j][levels / 2].
    std::vector<std::uint8_t> d_zero_levels, d_one_levels;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
