/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The streaming ring under every GPU pipeline (the detector's, the OFDM FFT's, APSM's,
 * the fused receiver's): slots, each a stream and an event, taken in turn by the chunks
 * of a call and of the calls that follow it, so that one chunk's copies overlap another's
 * kernels (mtt paper, section 5.4). A pipeline owns the buffers of slot k and says only
 * how a chunk is enqueued and how its results are handed over (land) or dropped (forget).
 *
 * The guarantees, written (and tested: tests/common/test_gpu_slot_ring.cc) here once:
 * - next() never hands out a slot whose previous chunk is still in flight: it waits for
 *   it and lands it first, so a slot's buffers are never overwritten while in use.
 * - The rotation goes on across calls until finish() or abandon(): a call's first
 *   chunks take the slots its predecessor used longest ago.
 * - finish() returns only when every committed chunk has ended, each landed once.
 * - abandon() (after a failure) returns only when nothing enqueued on any slot's stream
 *   can still run, committed or not, since it may write to the caller's memory; it lands
 *   nothing, never throws, and leaves the ring as new.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_SLOT_RING_CUH
#define INCLUDED_GPUMIMO_CUDA_SLOT_RING_CUH

#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace cuda {

class slot_ring
{
public:
    /*! `slots` slots; slot k on devices[k % devices.size()] (its stream and event are
     *  made there). \throws std::invalid_argument for no slots or no device. */
    slot_ring(std::size_t slots, const std::vector<int>& devices);
    slot_ring(const slot_ring&) = delete;
    slot_ring& operator=(const slot_ring&) = delete;

    std::size_t size() const { return d_slots.size(); }
    int device(std::size_t k) const { return d_slots[k].device; }
    cudaStream_t stream(std::size_t k) const { return d_slots[k].s.get(); }
    /*! True while a committed chunk has not been landed. */
    bool in_flight() const;

    /*! The slot for the next chunk. If it carries a chunk, waits for it (on its device)
     *  and calls land(k) to hand its results over. */
    template <typename Land>
    std::size_t next(Land&& land)
    {
        const std::size_t k = d_next++ % d_slots.size();
        wait_and_land(k, land);
        return k;
    }

    /*! The chunk just enqueued on stream(k) is in flight: its end is recorded. */
    void commit(std::size_t k);

    /*! Waits for every chunk in flight, land(k) for each in slot order, and starts the
     *  rotation over. */
    template <typename Land>
    void finish(Land&& land)
    {
        for (std::size_t k = 0; k < d_slots.size(); k++)
            wait_and_land(k, land);
        d_next = 0;
    }

    /*! After a failure: waits for everything enqueued on the slots' streams, calls
     *  forget(k) for each slot that had a chunk in flight, and starts the rotation over.
     *  Never throws (CUDA errors here are the failure's echo: the first one is told). */
    template <typename Forget>
    void abandon(Forget&& forget)
    {
        for (std::size_t k = 0; k < d_slots.size(); k++) {
            const bool had = d_slots[k].in_flight;
            quiesce(k);
            if (had) {
                try {
                    forget(k);
                } catch (...) {
                }
            }
        }
        d_next = 0;
    }
    void abandon()
    {
        abandon([](std::size_t) {});
    }

private:
    struct slot {
        int device = 0;
        cuda::stream s;
        cuda::event done;
        bool in_flight = false;
    };

    template <typename Land>
    void wait_and_land(std::size_t k, Land& land)
    {
        slot& s = d_slots[k];
        if (!s.in_flight)
            return;
        s.in_flight = false; // even if the wait throws: never landed twice
        GPUMIMO_CUDA_CHECK(cudaSetDevice(s.device));
        GPUMIMO_CUDA_CHECK(cudaEventSynchronize(s.done.get()));
        land(k);
    }
    void quiesce(std::size_t k) noexcept;

    std::vector<slot> d_slots;
    std::size_t d_next = 0;
};

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
