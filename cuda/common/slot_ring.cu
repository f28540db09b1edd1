/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/slot_ring.cuh"

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace cuda {

slot_ring::slot_ring(std::size_t slots, const std::vector<int>& devices)
{
    if (slots == 0 || devices.empty())
        throw std::invalid_argument("slot_ring: at least one slot and one device");
    const device_guard keep;
    d_slots.reserve(slots); // slots hold their stream and event: never moved once made
    for (std::size_t k = 0; k < slots; k++) {
        const int dev = devices[k % devices.size()];
        GPUMIMO_CUDA_CHECK(cudaSetDevice(dev));
        d_slots.emplace_back();
        d_slots.back().device = dev;
    }
}

bool slot_ring::in_flight() const
{
    for (const slot& s : d_slots)
        if (s.in_flight)
            return true;
    return false;
}

void slot_ring::commit(std::size_t k)
{
    slot& s = d_slots[k];
    GPUMIMO_CUDA_CHECK(cudaEventRecord(s.done.get(), s.s.get()));
    s.in_flight = true;
}

void slot_ring::quiesce(std::size_t k) noexcept
{
    slot& s = d_slots[k];
    s.in_flight = false;
    // The whole stream, not just the committed chunk: a chunk cut short by the failure
    // was enqueued in part and never committed.
    if (cudaSetDevice(s.device) == cudaSuccess)
        (void)cudaStreamSynchronize(s.s.get());
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
