/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DETECTOR_REGISTRY_H
#define INCLUDED_GPUMIMO_CORE_DETECTOR_REGISTRY_H

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/detect/detector_params.h>

#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! One channel matrix and the vectors that share it, for a CPU reference. */
struct group_problem {
    const std::complex<float>* h; // nr x nt, row-major
    double n0;
    const std::complex<float>* y; // count x nr
    std::size_t count;
    int nt;
    int nr;
    /*! Where a reference counts the vectors whose search ran out of its budget (psd's
     *  max_nodes); null: not counted. */
    std::uint64_t* budget_hits = nullptr;
    /*! Set when the caller asks the search to end (core/cancel.h): psd polls it and
     *  gives what it has, as when its budget runs out; null: never. */
    const std::atomic<bool>* stop = nullptr;
};

/*! A CPU reference: LLRs of p.count vectors into llr (count x nt x bits per symbol). */
using group_detector_fn = void (*)(const constellation&,
                                   const detector_params&,
                                   const group_problem&,
                                   float* llr);

/*! A parameter set worth running besides the defaults (test sweeps, benchmark). */
struct detector_variant {
    const char* label; // appended to the configuration's name, e.g. "block"
    detector_params params;
};

/*! A configuration the benchmark measures, with its paper's kernel figure if any. */
struct detector_bench_case {
    int nt; // nr = nt
    modulation mod;
    detector_params params;
    const char* label = "";    // e.g. "N=2", "20dB"
    double snr_db = 20.0;
    std::size_t paper_batch = 8400; // vectors per call in the paper
    double paper_mbps = 0.0;        // the paper's kernel figure, 0 if none
    const char* paper_ref = "";     // e.g. "mtt T2"
    bool slow = false;              // measured on a 16th of the full batch
};

/*! How long the CPU reference takes per vector, for test sweeps. */
enum class reference_cost {
    cheap,      // well under a millisecond: sweep a thousand vectors
    heavy,      // milliseconds: sweep a few dozen
    prohibitive // do not sweep
};

/*!
 * \brief Everything the core knows of one detector besides its kernels: the registry's
 * CPU entry. The GPU entry (kernels, workspace, launch) is in cuda/detect/gpu_registry.cuh.
 */
struct detector_entry {
    algorithm algo;
    const char* name;  // "ml", "psd", ...
    const char* label; // a menu label, for GRC: "Sphere (exact ML)"
    const char* title; // one line: what it is, for documentation and --help
    /*! Throws std::invalid_argument where this detector cannot take the configuration;
     *  nt/nr ranges and llr_clip are checked before (check_detector()). */
    void (*check)(const constellation&, int nt, int nr, const detector_params&);
    group_detector_fn reference;
    /*! What the CPU reference costs for nt streams of 2^bits points: what test sweeps
     *  comparing a backend against it may ask of it. */
    reference_cost (*cost)(int nt, int bits_per_symbol);
    std::vector<detector_variant> variants;
    std::vector<detector_bench_case> bench;
};

#define GPUMIMO_DETECTOR_DECLARE(name) const detector_entry& name##_detector();
GPUMIMO_DETECTORS(GPUMIMO_DETECTOR_DECLARE)
#undef GPUMIMO_DETECTOR_DECLARE

/*! Every detector, in the order of GPUMIMO_DETECTORS. */
const std::vector<const detector_entry*>& detector_registry();
const detector_entry& registry_entry(algorithm algo);
/*! "ml", "zf", ...: the names parse_algorithm() accepts, in registry order. */
std::vector<std::string> algorithm_names();

/*! The algorithm of a registry name. \throws std::invalid_argument naming the valid ones. */
algorithm parse_algorithm(const std::string& name);
std::string to_string(algorithm algo);

/*! Checks a detector configuration: nt in 1..max_nt, nr in nt..max_nr, llr_clip >= 0,
 *  list_llr_clip > 0 where the detector uses it, then the entry's own check.
 *  \throws std::invalid_argument naming what is wrong. */
void check_detector(algorithm algo,
                    const constellation& c,
                    int nt,
                    int nr,
                    const detector_params& params);

/*! The entries' shared check of list_llr_clip (finite and > 0). */
void check_list_llr_clip(const detector_params& params);
/*! For the detectors that search the square-QAM lattice of PAM levels (kbest, nway,
 *  psd): std::invalid_argument naming `algorithm`, the modulation and the detectors
 *  that take it, for BPSK and pi/2-BPSK. */
void check_square_qam(const constellation& c, const char* algorithm);
/*! Every detector's check of llr_clip (finite and >= 0; 0: no clipping). */
void check_llr_clip(const detector_params& params);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
