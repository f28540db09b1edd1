/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

detector_spec::detector_spec(algorithm algo, const detector_params& params)
    : d_algo(algo), d_params(params)
{
    registry_entry(algo); // a valid algorithm
    // The rest depends on nt, nr and the modulation: check().
    check_llr_clip(params);
}

detector_spec::detector_spec(const std::string& name, const detector_params& params)
    : detector_spec(parse_algorithm(name), params)
{
}

void detector_spec::check(modulation mod, int nt, int nr) const
{
    check_detector(d_algo, constellation(mod), nt, nr, d_params);
}

bool detector_spec::operator==(const detector_spec& o) const
{
    const detector_params &a = d_params, &b = o.d_params;
    return d_algo == o.d_algo && a.kbest.k == b.kbest.k && a.nway.passes == b.nway.passes &&
           a.psd.lvl == b.psd.lvl && a.psd.exp == b.psd.exp &&
           a.psd.block_search == b.psd.block_search && a.psd.max_nodes == b.psd.max_nodes && a.mtt.one_pass == b.mtt.one_pass &&
           a.list_llr_clip == b.list_llr_clip && a.llr_clip == b.llr_clip;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
