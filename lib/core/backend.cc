/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/backend.h>

#include <utility>

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

host_registration::host_registration(const void* base, std::size_t bytes, std::string* why)
{
    if (!base || bytes == 0) {
        if (why)
            *why = "empty range";
        return;
    }
#ifdef GPUMIMO_HAVE_CUDA
    if (cuda::usable_device_count(why) > 0 &&
        cuda::register_host(const_cast<void*>(base), bytes, why))
        d_base = const_cast<void*>(base);
#else
    (void)bytes;
    if (why)
        *why = "gr-gpumimo was built without CUDA";
#endif
}

host_registration::~host_registration()
{
#ifdef GPUMIMO_HAVE_CUDA
    if (d_base)
        cuda::unregister_host(d_base);
#endif
}

host_registration::host_registration(host_registration&& other) noexcept
    : d_base(other.d_base)
{
    other.d_base = nullptr;
}

host_registration& host_registration::operator=(host_registration&& other) noexcept
{
    if (this != &other) {
        host_registration gone(std::move(*this));
        d_base = other.d_base;
        other.d_base = nullptr;
    }
    return *this;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
