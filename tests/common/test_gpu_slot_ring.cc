/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The streaming ring's guarantees (cuda/common/slot_ring.cuh), once for every pipeline:
 * rotation across calls, a slot handed out only after its last chunk ended and landed,
 * every committed chunk landed exactly once by finish(), and nothing still running after
 * abandon(), committed or not.
 */
#include "common/gpu_test.h"
#include "common/slot_ring.cuh"

#include <cuda_runtime.h>

#include <map>
#include <vector>

namespace gc = gr::gpumimo::cuda;

namespace {

// A chunk that takes a while: many small copies of `bytes` through the copy engine,
// then its number into a pinned word of its slot.
struct chunk_work {
    gc::device_buffer<unsigned char> a, b;
    gc::pinned_buffer<int> mark;
    gc::device_buffer<int> dev_mark;
    static constexpr std::size_t bytes = 8 << 20;
    chunk_work() : a(bytes), b(bytes), mark(1), dev_mark(1) { *mark.get() = -1; }
    void enqueue(int number, cudaStream_t st)
    {
        for (int i = 0; i < 8; i++)
            GPUMIMO_CUDA_CHECK(
                cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, st));
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(dev_mark.get(), 0, sizeof(int), st));
        // The number goes down through host memory so that land() can check it.
        GPUMIMO_CUDA_CHECK(
            cudaMemcpyAsync(mark.get(), &numbers()[number], sizeof(int), cudaMemcpyHostToHost, st));
    }
    static const std::vector<int>& numbers()
    {
        static const std::vector<int> n = [] {
            std::vector<int> v(1000);
            for (int i = 0; i < 1000; i++)
                v[i] = i;
            return v;
        }();
        return n;
    }
};

} // namespace

TEST_F(Gpu, SlotRingRotatesLandsOnceAndFinishes)
{
    int dev = 0;
    GPUMIMO_CUDA_CHECK(cudaGetDevice(&dev));
    gc::slot_ring ring(3, { dev });
    std::vector<chunk_work> work(3);
    std::vector<int> in_slot(3, -1); // the chunk each slot carries
    std::map<int, int> landed;       // chunk -> times landed
    const auto land = [&](std::size_t k) {
        // The ring waited: the slot's chunk has ended and its mark is down.
        EXPECT_EQ(cudaStreamQuery(ring.stream(k)), cudaSuccess);
        EXPECT_EQ(*work[k].mark.get(), in_slot[k]);
        landed[in_slot[k]]++;
    };
    // Two calls of 4 and 3 chunks without finish() between: the rotation goes on.
    std::vector<std::size_t> order;
    int chunk = 0;
    for (int call : { 4, 3 })
        for (int i = 0; i < call; i++, chunk++) {
            const std::size_t k = ring.next(land);
            order.push_back(k);
            EXPECT_EQ(cudaStreamQuery(ring.stream(k)), cudaSuccess) << "slot handed out busy";
            in_slot[k] = chunk;
            work[k].enqueue(chunk, ring.stream(k));
            ring.commit(k);
            EXPECT_TRUE(ring.in_flight());
        }
    EXPECT_EQ(order, (std::vector<std::size_t>{ 0, 1, 2, 0, 1, 2, 0 }));
    ring.finish(land);
    EXPECT_FALSE(ring.in_flight());
    ASSERT_EQ(landed.size(), 7u);
    for (const auto& [c, times] : landed)
        EXPECT_EQ(times, 1) << "chunk " << c;
    // finish() starts the rotation over; a second finish() lands nothing.
    EXPECT_EQ(ring.next(land), 0u);
    ring.finish(land);
    EXPECT_EQ(landed.size(), 7u);
}

TEST_F(Gpu, SlotRingAbandonLeavesNothingRunning)
{
    int dev = 0;
    GPUMIMO_CUDA_CHECK(cudaGetDevice(&dev));
    gc::slot_ring ring(3, { dev });
    std::vector<chunk_work> work(3);
    std::vector<std::size_t> forgotten;
    int landed = 0;
    const auto land = [&](std::size_t) { landed++; };
    for (int i = 0; i < 2; i++) {
        const std::size_t k = ring.next(land);
        work[k].enqueue(i, ring.stream(k));
        ring.commit(k);
    }
    // A third chunk cut short: enqueued, never committed (its pipeline threw).
    const std::size_t cut = ring.next(land);
    work[cut].enqueue(2, ring.stream(cut));
    ring.abandon([&](std::size_t k) { forgotten.push_back(k); });
    for (std::size_t k = 0; k < ring.size(); k++)
        EXPECT_EQ(cudaStreamQuery(ring.stream(k)), cudaSuccess) << "slot " << k << " still runs";
    EXPECT_EQ(*work[cut].mark.get(), 2); // the uncommitted chunk ended too
    EXPECT_EQ(forgotten, (std::vector<std::size_t>{ 0, 1 })); // the committed ones, not landed
    EXPECT_EQ(landed, 0);
    EXPECT_FALSE(ring.in_flight());
    EXPECT_EQ(ring.next(land), 0u); // as new
    ring.finish(land);
    EXPECT_EQ(landed, 0);
}

TEST_F(Gpu, SlotRingRefusesNoSlots)
{
    EXPECT_THROW(gc::slot_ring(0, { 0 }), std::invalid_argument);
    EXPECT_THROW(gc::slot_ring(2, {}), std::invalid_argument);
}
