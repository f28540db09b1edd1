/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DETECTOR_PARAMS_H
#define INCLUDED_GPUMIMO_CORE_DETECTOR_PARAMS_H

#include <cstdint>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * The detectors of the core, one line each: the registry's list (docs/architecture.md).
 * Each name X has a CPU entry X_detector() (lib/core/detect/) and, where CUDA is built,
 * a GPU entry X_gpu_detector() (cuda/detect/kernels/); docs/detectors/X.md describes it.
 * Adding a detector is adding its line here and those three things.
 */
#define GPUMIMO_DETECTORS(X) X(ml) X(zf) X(mmse) X(kbest) X(mtt) X(nway) X(psd)

#define GPUMIMO_DETECTOR_ENUM(name) name,
/*! The MIMO detectors of the core, in the order of GPUMIMO_DETECTORS. */
enum class algorithm { GPUMIMO_DETECTORS(GPUMIMO_DETECTOR_ENUM) };
#undef GPUMIMO_DETECTOR_ENUM

constexpr int max_nt = 8;
constexpr int max_nr = 16;

/*! kbest: survivors kept per real-valued level. */
struct kbest_params {
    int k = 16;
};

/*! nway: number of passes N (1..nt); 0 means N = nt. */
struct nway_params {
    int passes = 0;
};

/*! psd (parallel-sphere-detector-gpu.txt). */
struct psd_params {
    /*! The levels lvl_0 = 2nt+1 > lvl_1 > ... > lvl_nr = 1 and the expansion counts
     *  exp_0 = 1, exp_1 .. exp_{nr-1} (Table 1). Both empty: the paper's Table 5 set for
     *  the configuration, or the documented default rule where the paper has none. */
    std::vector<int> lvl;
    std::vector<int> exp;
    /*! On the GPU: true runs the paper's mapping (one block per problem, the level set
     *  above); false (default) a depth-first Schnorr-Euchner search, one problem per
     *  thread. Both give the exact ML decision; the CPU ignores this. */
    bool block_search = false;
    /*! The most tree nodes one vector's search may evaluate (1 to 2^40). A search that
     *  reaches it stops and gives the best leaf found so far (the successive-cancellation
     *  point where it has found none), an ML decision no longer guaranteed; such vectors
     *  are counted (search_budget_hits). Below it the search is exact ML. The default,
     *  2^20, keeps a vector's search within about 0.1-0.6 s on one CPU core (8x8 1024-QAM
     *  at 0 dB took minutes for 4 vectors without it) and is reached by 2% of 4x4 64-QAM
     *  vectors at 0 dB, 0.5% at 5 dB, none at 10 dB (docs/detectors/psd.md). The CPU's
     *  and the GPU's searches keep to it. The CPU and the GPU's block search count the
     *  nodes they evaluate, the GPU's depth-first searches the nodes they descend into
     *  (each evaluating at most its level's PAM levels; on the GPU budgets above 2^32 - 1
     *  act as 2^32 - 1); their search orders differ, so the vectors that reach it and
     *  their fallback decisions may differ between CPU and GPU. */
    std::int64_t max_nodes = std::int64_t(1) << 20;
};

/*! mtt (mtt-soft-mimo-detector-gpu.txt). */
struct mtt_params {
    /*! The one-pass trellis (OT), the baseline of the paper's figure 7: the edge
     *  reductions once through every stage, then every stream's LLRs from the last
     *  stage's Q complete paths; a bit whose paths lack a counter-hypothesis gets
     *  +-list_llr_clip and every LLR is clipped to it, as the paper clips OT. false: the
     *  multi-pass traversal (a list per stage, no clipping). */
    bool one_pass = false;
};

/*! Parameters of the detectors: each detector reads its own struct and the two clips. */
struct detector_params {
    kbest_params kbest;
    nway_params nway;
    psd_params psd;
    mtt_params mtt;
    /*! kbest, nway, psd and one-pass mtt: |LLR| bound of the list detectors. A bit whose
     *  candidate list lacks a counter-hypothesis gets +-list_llr_clip, every other LLR
     *  is clipped to it (Hochwald and ten Brink's LLR clipping); psd reports its exact
     *  ML decision as +-list_llr_clip. */
    float list_llr_clip = 8.0f;
    /*! Every algorithm: clip all output LLRs to +-llr_clip; 0 means no clipping. */
    float llr_clip = 0.0f;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
