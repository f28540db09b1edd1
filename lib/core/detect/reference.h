/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU reference detectors, one function per algorithm. Each detects the vectors that
 * share one channel matrix, so that per-channel preprocessing (QR, sorting, filters)
 * runs once per matrix. Inputs are validated before these are called.
 */
#ifndef INCLUDED_GPUMIMO_CORE_REFERENCE_H
#define INCLUDED_GPUMIMO_CORE_REFERENCE_H

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <limits>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

// The references' problem and function types are the registry's (core/detect/registry.h).
using group_problem = core::group_problem;
using group_detector_fn = core::group_detector_fn;

void ml_detect(const constellation&,
               const detector_params&,
               const group_problem&,
               float*);
void zf_detect(const constellation&,
               const detector_params&,
               const group_problem&,
               float*);
void mmse_detect(const constellation&,
                 const detector_params&,
                 const group_problem&,
                 float*);
void kbest_detect(const constellation&,
                  const detector_params&,
                  const group_problem&,
                  float*);
void mtt_detect(const constellation&,
                const detector_params&,
                const group_problem&,
                float*);
void nway_detect(const constellation&,
                 const detector_params&,
                 const group_problem&,
                 float*);
void psd_detect(const constellation&,
                const detector_params&,
                const group_problem&,
                float*);

/*! Throws std::invalid_argument when params are invalid for the configuration. */
void psd_check_levels(int nt,
                      modulation mod,
                      const std::vector<int>& lvl,
                      const std::vector<int>& exp);

/*!
 * For every bit of one vector, the smallest metric ||y - Hs||^2 seen among candidates
 * with that bit 0 and among those with it 1: the hypothesis and counter-hypothesis of
 * max-log detection.
 */
class bit_minima
{
public:
    bit_minima(const constellation& c, int nt);
    void reset();
    /*! A candidate whose stream `stream` carries point `point` has metric d. */
    void offer(int stream, int point, double d);
    /*! A candidate vector (point index per stream) with metric d. */
    void offer_vector(const int* points, double d);
    /*!
     * LLR_k = (min0_k - min1_k) / n0, saturated at +-llr_limit (core/limits.h). Where
     * a side is missing the LLR is +-missing_llr (towards the side present), or 0 when
     * missing_llr is 0 (exact detectors miss a side only when its metrics were not
     * finite: nothing is known of the bit). list_clip > 0 clips every LLR to
     * +-list_clip.
     */
    void write_llr(double n0, float missing_llr, float list_clip, float* out) const;

private:
    const constellation& d_c;
    int d_nt;
    std::vector<double> d_min0, d_min1;
};

constexpr double inf = std::numeric_limits<double>::infinity();

} // namespace ref
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
