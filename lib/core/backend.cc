/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/backend.h>

#ifdef GPUMIMO_HAVE_CUDA
#include "../../cuda/device.h"
#endif

namespace gr {
namespace gpumimo {
namespace core {

#ifdef GPUMIMO_HAVE_CUDA
bool cuda_built() { return true; }
int cuda_device_count(std::string* why) { return cuda::usable_device_count(why); }
#else
bool cuda_built() { return false; }
int cuda_device_count(std::string* why)
{
    if (why)
        *why = "gr-gpumimo was built without CUDA";
    return 0;
}
#endif

} // namespace core
} // namespace gpumimo
} // namespace gr
