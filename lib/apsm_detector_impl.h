/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_APSM_DETECTOR_IMPL_H
#define INCLUDED_GPUMIMO_APSM_DETECTOR_IMPL_H

#include "block_support/block_faults.h"

#include <gnuradio/gpumimo/apsm_detector.h>
#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>

#include <pmt/pmt.h>

#include <atomic>
#include <memory>
#include <vector>

namespace gr {
namespace gpumimo {

class apsm_detector_impl : public apsm_detector
{
public:
    apsm_detector_impl(int antennas,
                       int users,
                       const std::string& modulation,
                       std::vector<gr_complex> pilots,
                       int training_len,
                       const std::string& backend,
                       int device,
                       const core::apsm_params& params,
                       const std::string& training_tag,
                       std::vector<int> ports,
                       bool track,
                       int max_training);

    std::string backend() const override { return d_engine->backend(); }
    int training_len() const override { return d_training_len; }
    int training_used() const override { return int(d_subset.size()); }
    std::uint64_t trainings() const override { return d_trainings; }
    std::uint64_t failed_trainings() const override { return d_failed_trainings; }
    std::uint64_t detected() const override { return d_detected; }
    std::uint64_t untrained() const override { return d_untrained; }
    std::uint64_t erased() const override { return d_erased; }
    std::uint64_t work_failures() const override { return d_faults.count(); }
    std::vector<double> noise_variances() const override;
    double last_training_ms() const override { return d_last_training_ms; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // Trains every user's filter on the collected pilot vectors.
    void train();
    // Detects n vectors starting at item `pos` of every input into the outputs.
    void detect(std::size_t pos,
                std::size_t n,
                gr_vector_const_void_star& input_items,
                gr_vector_void_star& output_items);
    // work() without its guard.
    int detect_and_train(int noutput_items,
                         gr_vector_const_void_star& input_items,
                         gr_vector_void_star& output_items);

    const std::vector<int> d_ports; // the input ports used
    const int d_antennas, d_users, d_training_len; // d_antennas: those used
    const core::constellation d_constellation;
    const core::soft_llr_mapper d_llr_mapper; // soft_to_llr one dimension at a time
    const core::apsm_params d_params;
    const bool d_track; // detection by core::apsm_track, the filters following the data
    const std::vector<gr_complex> d_pilots; // users x training_len, user-major
    const pmt::pmt_t d_training_key;
    std::unique_ptr<core::apsm_engine> d_engine; // make_apsm_engine
    std::vector<core::apsm_filter> d_filters; // empty until the first training

    bool d_collecting = false;
    std::size_t d_collected = 0;
    std::atomic<bool> d_train_requested{ false }; // by a message
    std::vector<gr_complex> d_pilot_rx; // training_len x antennas
    // The pilots a training takes (core::training_subset), and where it takes fewer
    // than training_len: their received vectors gathered, and their symbols.
    const std::vector<std::size_t> d_subset;
    std::vector<gr_complex> d_subset_rx;     // used x antennas
    std::vector<gr_complex> d_subset_pilots; // users x used, user-major
    std::vector<gr_complex> d_rx;       // a chunk's vectors, symbol x antenna
    std::vector<gr_complex> d_soft;     // users x chunk
    std::vector<tag_t> d_tags;          // scratch

    std::uint64_t d_trainings = 0, d_failed_trainings = 0, d_detected = 0, d_untrained = 0,
                  d_erased = 0;
    double d_last_training_ms = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

} // namespace gpumimo
} // namespace gr

#endif
