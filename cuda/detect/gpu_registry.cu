/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The table of the registry's GPU entries, in the order of GPUMIMO_DETECTORS.
 */
#include "detect/gpu_registry.cuh"

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

const gpu_detector_entry& gpu_registry_entry(core::algorithm algo)
{
#define GPUMIMO_GPU_DETECTOR_ADDRESS(name) &name##_gpu_detector(),
    static const gpu_detector_entry* const table[] = { GPUMIMO_DETECTORS(
        GPUMIMO_GPU_DETECTOR_ADDRESS) };
#undef GPUMIMO_GPU_DETECTOR_ADDRESS
    const auto i = static_cast<std::size_t>(algo);
    if (i >= sizeof(table) / sizeof(table[0]))
        throw std::invalid_argument("invalid algorithm " + std::to_string(int(i)));
    return *table[i];
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
