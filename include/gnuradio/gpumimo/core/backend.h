/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_BACKEND_H
#define INCLUDED_GPUMIMO_CORE_BACKEND_H

#include <cstddef>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! True when this build contains the CUDA backends. */
bool cuda_built();

/*! Number of CUDA devices usable now; 0 with the reason in *why (no CUDA in this
 *  build, no driver, no device) otherwise. Never throws. */
int cuda_device_count(std::string* why = nullptr);

/*! Host memory page-locked for the CUDA driver (cudaHostRegister) while this object
 *  lives, so that GPU copies to and from it are direct DMA and skip a staging copy
 *  (GNU Radio's stream buffers, for example). Registrations are shared: a second
 *  object for a range starting at the same address, no longer than the first, owns
 *  it too, and the range stays registered until its last owner is gone (a stream
 *  buffer is registered by the block writing it and by the one reading it, and either
 *  may stop first). A range that cannot be registered (no CUDA, no device, memory the
 *  driver refuses, a range overlapping one registered otherwise) is left as it was:
 *  pinned() says false and *why says why. Never throws. */
class host_registration
{
public:
    host_registration() = default;
    host_registration(const void* base, std::size_t bytes, std::string* why = nullptr);
    ~host_registration();
    host_registration(host_registration&& other) noexcept;
    host_registration& operator=(host_registration&& other) noexcept;
    host_registration(const host_registration&) = delete;
    host_registration& operator=(const host_registration&) = delete;

    bool pinned() const { return d_base != nullptr; }

private:
    void* d_base = nullptr;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
