/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_PAYLOAD_DETECTOR_H
#define INCLUDED_GPUMIMO_CORE_PAYLOAD_DETECTOR_H

#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/frame.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A run of payload symbols sharing one channel estimate, as mimo_chanest hands
 * them to mimo_detector: each antenna's OFDM symbols on every used carrier, the
 * estimate's H on every used carrier and the detectors' noise per used carrier.
 */
struct payload_run {
    const std::complex<float>* const* carriers = nullptr; // [rx] -> [symbol][used carrier]
    std::size_t symbols = 0;
    const std::complex<float>* h = nullptr; // [used carrier][rx][tx]; host or device
    // memory on the GPU engine (an estimate record between GPU blocks), host on the CPU
    const float* noise = nullptr;           // [used carrier]
};

/*!
 * \brief The data carriers of payload runs detected, LLRs out in the frame's order:
 * [symbol][data carrier (data_carriers() order)][bit], the detector's LLR sign.
 *
 * Each symbol is one detector vector per data carrier, y_d = (x_0[d], ..., x_rx-1[d]),
 * with H and N0 of that carrier; the detector sees them carrier-major
 * (core/frame/carrier_major.h: the run's symbols of one carrier share its H). A symbol
 * holding an unusable value (core::is_usable) on any antenna's data carrier is erased:
 * its LLRs are 0 and erased[symbol] is set. Any LLR that is not finite leaves as 0.
 *
 * Two engines: the host one regroups on the CPU around a detector_engine (the
 * reference on "cpu"); the GPU one regroups on the device around
 * gpu_detector::detect_device, copying carriers in and LLRs out by DMA in place where
 * they are page-locked (a block's registered stream buffers).
 */
class payload_detector
{
public:
    virtual ~payload_detector() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! LLRs per OFDM symbol: data carriers x bits per vector. */
    virtual std::size_t llrs_per_symbol() const = 0;
    /*! Detects `run` into llr (run.symbols x llrs_per_symbol()) and erased
     *  (run.symbols flags); returns the number of erased symbols. Throws
     *  std::invalid_argument when the detector refuses the run (a vector beyond its
     *  model's range, core/limits.h, or an unusable H or N0): llr is then undefined and
     *  the caller erases the run. */
    virtual std::size_t detect(const payload_run& run, float* llr, std::uint8_t* erased) = 0;
    /*! Several runs (each with its own estimate, as a call of mimo_detector holds one
     *  per frame): run i's LLRs into llr[i], its erased flags into erased[i], refused[i]
     *  set where detect() would refuse run i (its LLRs then undefined; the first reason
     *  into *why where given). Returns the erased symbols of the runs not refused. The
     *  GPU engine enqueues them all and waits for the device once, where every run's
     *  carriers and LLRs lie where the device reaches them in place (device or
     *  page-locked memory); otherwise, and on the CPU, one detect() per run. */
    virtual std::size_t detect_runs(const payload_run* runs,
                                    std::size_t count,
                                    float* const* llr,
                                    std::uint8_t* const* erased,
                                    std::uint8_t* refused,
                                    std::string* why = nullptr);
    virtual gpu_fallback* fallback() { return nullptr; }
    /*! Vectors whose detector search ran out of its budget so far (psd's max_nodes on
     *  the CPU: detector_engine::search_budget_hits). */
    virtual std::uint64_t search_budget_hits() const { return 0; }
};

/*! What a payload_detector detects: the frame's numerology (its used and data
 *  carriers) and the detector (detector_config's nt streams, nr antennas). */
struct payload_detector_config {
    numerology num;
    detector_config detector;
};

/*! The payload detection factory: on `backend` ("auto", "cpu" or "cuda":
 *  choose_backend()), the host engine over the CPU reference beside a GPU engine for
 *  the fallback policy (core/engine.h). */
std::unique_ptr<payload_detector> make_payload_detector(const payload_detector_config& config,
                                                        const std::string& backend,
                                                        std::string* fallback_reason = nullptr);

/*! The host engine around any detector_engine (the factory's CPU engine; tests hold the
 *  GPU engine to it). payload: the frame's modulation; for pi/2-BPSK the engine turns
 *  the odd data carriers back (payload_turn_back) and `detector` detects BPSK
 *  (detected_modulation). */
std::unique_ptr<payload_detector> make_host_payload_detector(const numerology& num,
                                                             int nt,
                                                             int nr,
                                                             std::unique_ptr<detector_engine> detector,
                                                             modulation payload = modulation::qpsk);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
