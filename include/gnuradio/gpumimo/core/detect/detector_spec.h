/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DETECTOR_SPEC_H
#define INCLUDED_GPUMIMO_CORE_DETECTOR_SPEC_H

#include <gnuradio/gpumimo/core/detect/detector_params.h>
#include <gnuradio/gpumimo/core/detect/registry.h>

#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A detector as the blocks take it, as gr-digital's blocks take a constellation:
 * the algorithm and every one of its parameters, in one value (Python:
 * gpumimo.detector_spec("psd", psd_block_search=True); GRC: the detector blocks'
 * parameters). The constructor checks the name and llr_clip; check() the rest, against
 * nt, nr and the modulation (core::check_detector()).
 */
class detector_spec
{
public:
    /*! mmse with default parameters. */
    detector_spec() = default;
    detector_spec(algorithm algo, const detector_params& params = detector_params());
    /*! \throws std::invalid_argument for a name that is not in the registry. */
    explicit detector_spec(const std::string& name,
                           const detector_params& params = detector_params());

    algorithm algo() const { return d_algo; }
    std::string name() const { return to_string(d_algo); }
    const detector_params& params() const { return d_params; }

    /*! core::check_detector() for this spec. */
    void check(modulation mod, int nt, int nr) const;

    bool operator==(const detector_spec& other) const;
    bool operator!=(const detector_spec& other) const { return !(*this == other); }

private:
    algorithm d_algo = algorithm::mmse;
    detector_params d_params;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
