/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The detector registry: the table of GPUMIMO_DETECTORS' entries, names and the checks
 * every detector shares. Each entry is defined beside its CPU reference (X_ref.cc).
 */
#include <gnuradio/gpumimo/core/detect/registry.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

const std::vector<const detector_entry*>& detector_registry()
{
#define GPUMIMO_DETECTOR_ADDRESS(name) &name##_detector(),
    static const std::vector<const detector_entry*> table{ GPUMIMO_DETECTORS(
        GPUMIMO_DETECTOR_ADDRESS) };
#undef GPUMIMO_DETECTOR_ADDRESS
    return table;
}

const detector_entry& registry_entry(algorithm algo)
{
    for (const detector_entry* e : detector_registry())
        if (e->algo == algo)
            return *e;
    throw std::invalid_argument("invalid algorithm " + std::to_string(int(algo)));
}

std::vector<std::string> algorithm_names()
{
    std::vector<std::string> names;
    for (const detector_entry* e : detector_registry())
        names.push_back(e->name);
    return names;
}

algorithm parse_algorithm(const std::string& name)
{
    std::string known;
    for (const detector_entry* e : detector_registry()) {
        if (name == e->name)
            return e->algo;
        known += (known.empty() ? "" : ", ") + std::string(e->name);
    }
    throw std::invalid_argument("unknown algorithm " + quoted_text(name) +
                                " (expected one of " + known + ")");
}

std::string to_string(algorithm algo) { return registry_entry(algo).name; }

void check_list_llr_clip(const detector_params& p)
{
    if (!(std::isfinite(p.list_llr_clip) && p.list_llr_clip > 0.0f))
        throw std::invalid_argument("list_llr_clip must be finite and > 0");
}

void check_square_qam(const constellation& c, const char* algorithm)
{
    if (!c.square())
        throw std::invalid_argument(std::string(algorithm) +
                                    " searches the square-QAM lattice, which " +
                                    to_string(c.mod()) +
                                    " is not: use ml, zf, mmse or mtt for it");
}

void check_llr_clip(const detector_params& p)
{
    if (!(std::isfinite(p.llr_clip) && p.llr_clip >= 0.0f))
        throw std::invalid_argument("llr_clip must be >= 0 (0: no clipping)");
}

void check_detector(
    algorithm algo, const constellation& c, int nt, int nr, const detector_params& p)
{
    if (nt < 1 || nt > max_nt)
        throw std::invalid_argument("nt = " + std::to_string(nt) + " must be 1.." +
                                    std::to_string(max_nt));
    if (nr < nt || nr > max_nr)
        throw std::invalid_argument("nr = " + std::to_string(nr) + " must be nt.." +
                                    std::to_string(max_nr) +
                                    " (nt = " + std::to_string(nt) + ")");
    check_llr_clip(p);
    registry_entry(algo).check(c, nt, nr, p);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
