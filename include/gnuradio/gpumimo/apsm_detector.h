/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_APSM_DETECTOR_H
#define INCLUDED_GPUMIMO_APSM_DETECTOR_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief APSM partially linear multiuser detector (docs/apsm.md): trained on known
 * pilot symbols, then soft symbols and LLRs for every user, on a GPU or the CPU.
 * \ingroup gpumimo
 * \details
 * Inputs: `antennas` streams of received symbols (gr_complex, after OFDM demodulation,
 * one item per resource element, all streams aligned). Outputs: `users` streams of soft
 * symbol estimates (gr_complex, on the unit-energy constellation), then `users` streams
 * of LLR vectors (float x bits per symbol, the core's convention: positive means bit 1,
 * docs/conventions.md).
 *
 * Training: a stream tag with key `training_tag` on input 0 marks the first of
 * `training_len` pilot vectors; once they have arrived the filters of all users are
 * trained on them and detect every later vector, until the next training tag. A
 * message on the `train` port starts a training at the next vector, the same way. The
 * pilots are given as `pilots` (users x training_len, user-major) or as `pilot_file`
 * (the same, raw complex64 as a GNU Radio file sink or numpy's tofile writes it).
 * Outputs at pilot positions come from the filters of the previous training; before
 * the first training every output is 0 (soft symbols and LLRs: erasures), counted.
 *
 * ls_guard: each training also holds out the last quarter of the pilots and gives a user
 * the least-squares filter where that matches them better than APSM (docs/apsm.md,
 * "The least-squares guard"), so that the default does no worse than a linear detector
 * where the pilots are too poor a sample for the kernel's corrections (one or two
 * antennas). It trains twice.
 *
 * track: after each training the filters follow the channel through the data symbols
 * (the paper's Remark 2, core::apsm_track: each vector's nearest point taken as sent
 * and the filter projected on it), on the CPU reference whatever the backend (training
 * stays on the GPU where it runs); about 1 to 2 ms a vector a user, so for slow links
 * or replays. A new training starts again from its own filters.
 *
 * max_training: train on at most this many of a training's pilot vectors, evenly spaced
 * over them (core::training_subset; 0, the default: all). The GPU trainer takes at most
 * 4096 (lte20's 6-user frame has 7200: with max_training 4096 it trains on the GPU);
 * docs/apsm.md, "Training on a subset of the pilots", gives what each choice costs in
 * errors. training_used() says how many a training takes.
 *
 * antenna_subset: the input ports (0..antennas-1, distinct) the detector uses, as
 * gpumimo_apsm_ota --antennas does on the recordings (docs/apsm.md, "BER against receive
 * antennas"); empty (the default): every port. The other ports are read and dropped.
 *
 * The APSM parameters are those of core::apsm_params (docs/apsm.md); the defaults are
 * gr-gpumimo's, at least as good as least squares on the over-the-air recordings.
 * Training runs inside work(): on the GPU about 2 ms for 6 users, 16 antennas and 685
 * pilots; on the CPU reference about 0.5 s (the block holds its input meanwhile).
 * backend "auto" trains and detects on the GPU when one is usable (at most 8 users, 16
 * antennas, 4096 pilots a training) and on the CPU otherwise, logging why; "cuda" requires the GPU; "cpu" is the reference. A CUDA failure while
 * running logs an error and moves the block to the CPU; the flowgraph goes on.
 *
 * Bad input loses nothing and stops nothing: a training set the detector cannot use
 * (NaN or Inf samples, antennas that see nothing) is refused with a logged error and
 * the previous filters stay; a received vector with NaN or Inf gives 0 soft symbols and
 * 0 LLRs (erasures), counted; no NaN goes downstream.
 */
class GPUMIMO_API apsm_detector : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<apsm_detector> sptr;

    static sptr make(int antennas,
                     int users,
                     const std::string& modulation,
                     const std::vector<gr_complex>& pilots = std::vector<gr_complex>(),
                     int training_len = 0,
                     const std::string& pilot_file = "",
                     const std::string& training_tag = "apsm_train",
                     const std::string& backend = "auto",
                     int device = 0,
                     int window = 20,
                     float gaussian_variance = 0.02f,
                     float linear_weight = 0.01f,
                     float gaussian_weight = 1.0f,
                     float epsilon = 0.1f,
                     int dictionary_size = 685,
                     int sample_step = 2,
                     int passes = 1,
                     bool ls_init = true,
                     bool normalize_input = true,
                     const std::vector<int>& antenna_subset = std::vector<int>(),
                     bool ls_guard = true,
                     bool track = false,
                     int max_training = 0);

    /*! "cuda" or "cpu": where training and detection run now. */
    virtual std::string backend() const = 0;
    /*! Pilot symbols per user in a training. */
    virtual int training_len() const = 0;
    /*! Pilot vectors a training takes (training_len, or max_training of them). */
    virtual int training_used() const = 0;
    /*! Trainings done (the filters in use come from the last one). */
    virtual std::uint64_t trainings() const = 0;
    /*! Trainings refused (bad training sets); the previous filters stayed. */
    virtual std::uint64_t failed_trainings() const = 0;
    /*! Vectors detected with trained filters. */
    virtual std::uint64_t detected() const = 0;
    /*! Vectors output as 0 before the first training. */
    virtual std::uint64_t untrained() const = 0;
    /*! Vectors with NaN or Inf samples output as 0. */
    virtual std::uint64_t erased() const = 0;
    /*! Each user's LLR noise variance from the last training (its residual). */
    virtual std::vector<double> noise_variances() const = 0;
    /*! Milliseconds the last training took (host to host). */
    virtual double last_training_ms() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
