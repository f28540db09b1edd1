/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#ifdef GPUMIMO_HAVE_CUDA
#include "detail/cuda_device.h"
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

#ifdef GPUMIMO_HAVE_CUDA
namespace {

// Registrations are shared. GNU Radio hands the same stream buffer to the block that
// writes it and to the one that reads it, and each block registers its buffers at
// start() and drops them at stop(), which the scheduler calls in the block's own thread
// as soon as that block is done. Were the writer's registration its own, the writer's
// stop() would unregister the buffer while the reader still copies from it by DMA (an
// "unspecified launch failure" that ends the CUDA context). So a range is registered
// with the driver once, counted, and unregistered when its last owner lets go.
struct shared_range {
    std::size_t bytes;
    int owners;
};
std::mutex registry_mutex;
std::map<void*, shared_range> registry; // by base address

} // namespace
#endif

host_registration::host_registration(const void* base, std::size_t bytes, std::string* why)
{
    if (!base || bytes == 0) {
        if (why)
            *why = "empty range";
        return;
    }
#ifdef GPUMIMO_HAVE_CUDA
    void* const start = const_cast<void*>(base);
    const std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = registry.find(start);
    if (it != registry.end()) {
        if (it->second.bytes >= bytes) {
            it->second.owners++;
            d_base = start;
        } else if (why) {
            *why = "a shorter range from the same address is registered already";
        }
        return;
    }
    if (cuda::usable_device_count(why) > 0 && cuda::register_host(start, bytes, why)) {
        registry.emplace(start, shared_range{ bytes, 1 });
        d_base = start;
    }
#else
    (void)bytes;
    if (why)
        *why = "gr-gpumimo was built without CUDA";
#endif
}

host_registration::~host_registration()
{
#ifdef GPUMIMO_HAVE_CUDA
    if (!d_base)
        return;
    const std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = registry.find(d_base);
    if (it != registry.end() && --it->second.owners == 0) {
        cuda::unregister_host(d_base);
        registry.erase(it);
    }
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

long injected_gpu_failure()
{
    const char* v = std::getenv("GPUMIMO_INJECT_GPU_FAILURE");
    if (!v || !*v)
        return -1;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return *end == '\0' && n >= 0 ? n : -1;
}

void check_backend_name(const std::string& backend)
{
    if (backend != "auto" && backend != "cpu" && backend != "cuda")
        throw std::invalid_argument("unknown backend " + quoted_text(backend) +
                                    " (expected auto, cpu or cuda)");
}

} // namespace core
} // namespace gpumimo
} // namespace gr
