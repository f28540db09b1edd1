/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA OFDM FFT against the CPU reference on fresh random symbols: sizes 64 .. 4096
 * (powers of two, 1536, 3072), 1 .. 16 channels, every input and output format, both
 * directions, prefix patterns, carriers, shift and window; chunks over streams and over
 * a device list (the same device twice takes the multi-GPU path on one GPU); outputs
 * poisoned two ways and required identical (so every byte was written); bad input.
 * The default path is the single-pass transform for powers of two (64 .. 4096) and
 * cuFFT with callbacks for the other sizes; cuFFT with callbacks and with conversion
 * kernels is held to the reference beside it on powers of two too. Skipped, and reported as skipped,
 * where no CUDA device is usable (the fast_divmod test runs everywhere).
 */
#include "common/fast_divmod.cuh"
#include "common/gpu_test.h"
#include "ofdm/ofdm_compare.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/ofdm/gpu_ofdm_fft.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

using namespace gr::gpumimo::core;
using gpumimo_test::lte_like;
using gpumimo_test::make_rng;
using gpumimo_test::random_input;
using cf = std::complex<float>;

namespace {

using GpuOfdm = Gpu;

// Several devices: every visible GPU where two or more are (issue 29: the multi-GPU
// paths on distinct devices, as many as the machine has), else the list {0, 0}, whose
// chunks alternate between two contexts of one GPU as they would between two GPUs.
std::vector<int> several_devices()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
    static const bool told = [count] {
        std::cout << "[ devices  ] multi-GPU paths on "
                  << (count >= 2 ? std::to_string(count) + " GPUs" : std::string("{0, 0} (one GPU)"))
                  << "\n";
        return true;
    }();
    (void)told;
    if (count < 2)
        return { 0, 0 };
    std::vector<int> all;
    for (int d = 0; d < count; d++)
        all.push_back(d);
    return all;
}

// The GPU against the CPU reference (ofdm_compare.h), chunked over `devices`.
void compare(const ofdm_fft_config& c,
             std::size_t first,
             std::size_t nsym,
             std::size_t chunk,
             const std::vector<int>& devices,
             std::mt19937_64& rng,
             bool separate = false,
             fft_fusion fusion = fft_fusion::automatic)
{
    gpu_ofdm_fft gpu(c, devices, chunk, 3, fusion);
    gpumimo_test::compare_with_reference(
        c,
        first,
        nsym,
        rng,
        [&](const ofdm_fft_io& io) { return gpu.process(io); },
        separate);
}

} // namespace

TEST(FastDivmod, EqualsDivisionAndRemainder)
{
    // The transform sizes the callbacks divide by, other small divisors and random
    // ones, each against x / d and x % d on random x below 2^31 and at the edges, where
    // a multiplier one off shows first.
    auto rng = make_rng(509);
    std::vector<std::uint32_t> divisors = { 1, 2, 3, 5, 7, 14, 64, 1536, 3072, 4096, 65535 };
    for (int i = 0; i < 200; i++)
        divisors.push_back(std::uint32_t(rng() % ((1u << 31) - 1)) + 1);
    for (std::uint32_t d : divisors) {
        const gr::gpumimo::cuda::fast_divmod f(d);
        std::vector<std::uint32_t> xs = { 0, 1, d - 1, d, (1u << 31) - 1, (1u << 31) - d };
        for (int i = 0; i < 2000; i++)
            xs.push_back(std::uint32_t(rng() % (1u << 31)));
        for (std::uint32_t x : xs) {
            std::uint32_t r = 0;
            const std::uint32_t q = f.divmod(x, r);
            ASSERT_EQ(q, x / d) << "x " << x << " d " << d;
            ASSERT_EQ(r, x % d) << "x " << x << " d " << d;
        }
    }
}

TEST_F(GpuOfdm, FusionModesAreWhatTheyClaim)
{
    // automatic: our single-pass transform for every power of two it has, cuFFT for
    // the other sizes (with callbacks where the toolkit links them).
    for (int n : { 64, 128, 256, 512, 1024, 2048, 4096 }) {
        const ofdm_fft_config c = lte_like(n, fft_direction::forward);
        gpu_ofdm_fft automatic(c, { 0 }, 4, 1);
        EXPECT_EQ(automatic.path(), fft_fusion::single_pass) << n;
        EXPECT_TRUE(automatic.fused()) << n;
        EXPECT_TRUE(automatic.fusion_note().empty()) << automatic.fusion_note();
    }
    const ofdm_fft_config c = lte_like(1536, fft_direction::inverse);
    EXPECT_THROW(gpu_ofdm_fft(c, { 0 }, 4, 1, fft_fusion::single_pass),
                 std::invalid_argument);
    gpu_ofdm_fft automatic(c, { 0 }, 4, 1);
    std::printf("1536 points: %s (%s)\n",
                automatic.path() == fft_fusion::callbacks ? "cuFFT callbacks" : "kernels",
                automatic.fusion_note().c_str());
    EXPECT_NE(automatic.path(), fft_fusion::single_pass);
    EXPECT_NE(automatic.fusion_note().find("no single-pass transform of 1536"),
              std::string::npos);
    EXPECT_EQ(automatic.fused(), automatic.path() == fft_fusion::callbacks);
    if (automatic.path() == fft_fusion::callbacks)
        EXPECT_EQ(gpu_ofdm_fft(c, { 0 }, 4, 1, fft_fusion::callbacks).path(),
                  fft_fusion::callbacks);
    else
        EXPECT_THROW(gpu_ofdm_fft(c, { 0 }, 4, 1, fft_fusion::callbacks), std::runtime_error);
    const gpu_ofdm_fft kernels(lte_like(512, fft_direction::forward), { 0 }, 4, 1,
                               fft_fusion::kernels);
    EXPECT_EQ(kernels.path(), fft_fusion::kernels);
    EXPECT_FALSE(kernels.fused());
}

namespace {

// A cuFFT path (callbacks or kernels) held to the reference on the cases that exercise
// every branch of its conversions; the default path (the single-pass transform for
// powers of two) is held to it by every other test here.
void cufft_path_equals_reference(fft_fusion fusion, std::mt19937_64& rng)
{
    gpumimo_test::for_every_format_pair([&](const ofdm_fft_config& c) {
        compare(c, 3, 7, 3, { 0 }, rng, false, fusion);
    });
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c = lte_like(1536, dir);
        c.channels = 5;
        for (int t = 0; t < 1536; t++)
            c.window.push_back(float(0.5 - 0.5 * std::cos(2 * M_PI * t / 1535)));
        compare(c, 2, 9, 4, { 0 }, rng, false, fusion);
    }
    std::unique_ptr<gpu_ofdm_fft> gpu;
    const auto make = [&](const ofdm_fft_config& c) {
        gpu = std::make_unique<gpu_ofdm_fft>(c, std::vector<int>{ 0 }, 4, 2, fusion);
        return gpumimo_test::ofdm_process(
            [&](const ofdm_fft_io& io) { return gpu->process(io); });
    };
    gpumimo_test::check_non_finite_symbols(rng, make);
    gpumimo_test::check_non_finite_carriers(rng, make);
}

} // namespace

TEST_F(GpuOfdm, KernelPathEqualsReferenceToo)
{
    auto rng = make_rng(508);
    cufft_path_equals_reference(fft_fusion::kernels, rng);
}

TEST_F(GpuOfdm, CallbackPathEqualsReferenceToo)
{
    try {
        gpu_ofdm_fft probe(lte_like(512, fft_direction::forward), { 0 }, 4, 1,
                           fft_fusion::callbacks);
    } catch (const std::runtime_error& e) {
        GTEST_SKIP() << "no cuFFT callbacks here: " << e.what();
    }
    auto rng = make_rng(510);
    cufft_path_equals_reference(fft_fusion::callbacks, rng);
}

TEST_F(GpuOfdm, ForwardEqualsReferenceAcrossSizesAndChannels)
{
    auto rng = make_rng(500);
    for (int n : { 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096 })
        for (int channels : { 1, 3, 16 }) {
            ofdm_fft_config c = lte_like(n, fft_direction::forward);
            c.channels = channels;
            c.input = sample_format::sc16;
            compare(c, 1, channels == 16 ? 5 : 9, 4, { 0 }, rng);
        }
}

TEST_F(GpuOfdm, EveryFormatBothDirections)
{
    auto rng = make_rng(501);
    gpumimo_test::for_every_format_pair(
        [&](const ofdm_fft_config& c) { compare(c, 3, 7, 3, { 0 }, rng); });
}

TEST_F(GpuOfdm, WindowNoShiftAllCarriersNoPrefix)
{
    auto rng = make_rng(502);
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c;
        c.fft_len = 1024;
        c.direction = dir;
        c.channels = 4;
        for (int t = 0; t < 1024; t++)
            c.window.push_back(float(0.54 - 0.46 * std::cos(2 * M_PI * t / 1023)));
        compare(c, 0, 6, 4, { 0 }, rng);
        c.cp_lengths = { 0, 72 };
        compare(c, 5, 6, 5, { 0 }, rng);
    }
}

TEST_F(GpuOfdm, ChunksOverStreamsAndDevices)
{
    // 37 symbols in chunks of 1, 2, 5 and 64 (binary batch splits of every size), over
    // one device and over several (several_devices(): every GPU, or {0, 0} with one).
    auto rng = make_rng(503);
    for (std::size_t chunk : { 1, 2, 5, 64 })
        for (const std::vector<int>& devs : { std::vector<int>{ 0 }, several_devices() }) {
            ofdm_fft_config c = lte_like(128, fft_direction::forward);
            c.channels = 3;
            c.input = sample_format::sc8;
            compare(c, 2, 37, chunk, devs, rng);
        }
}

TEST_F(GpuOfdm, SeparateChannelBuffers)
{
    // A GNU Radio block's C input and output buffers, pageable (staged) and pinned.
    auto rng = make_rng(506);
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c = lte_like(512, dir);
        c.channels = 16;
        c.input =
            dir == fft_direction::forward ? sample_format::sc16 : sample_format::fc32;
        c.output =
            dir == fft_direction::forward ? sample_format::fc16 : sample_format::sc16;
        if (dir == fft_direction::inverse)
            c.scale = 0.25f / std::sqrt(float(c.carriers.size())); // no clipping
        compare(c, 1, 11, 4, { 0 }, rng, true);
    }
    ofdm_fft_config c = lte_like(256, fft_direction::forward);
    c.channels = 3;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 10, in_len = lay.in_samples(0, nsym),
                      out_len = lay.out_samples(0, nsym);
    gpu_ofdm_fft gpu(c, { 0 }, 3, 2);
    std::vector<void*> ins(3), outs(3);
    std::vector<cf> want(3 * out_len);
    std::vector<unsigned char> all_in;
    for (int ch = 0; ch < 3; ch++) {
        const std::vector<unsigned char> in = random_input(rng, c.input, in_len, 0.5f);
        all_in.insert(all_in.end(), in.begin(), in.end());
        ASSERT_EQ(cudaMallocHost(&ins[ch], in.size()), cudaSuccess);
        ASSERT_EQ(cudaMallocHost(&outs[ch], out_len * sizeof(cf)), cudaSuccess);
        std::memcpy(ins[ch], in.data(), in.size());
        std::memset(outs[ch], 0xff, out_len * sizeof(cf));
    }
    cpu_ofdm_fft(c).process({ all_in.data(), in_len, want.data(), out_len, 0, nsym });
    ofdm_fft_io io;
    io.in_channels = const_cast<const void* const*>(ins.data());
    io.out_channels = outs.data();
    io.nsym = nsym;
    gpu.process(io);
    for (int ch = 0; ch < 3; ch++) {
        const cf* got = static_cast<const cf*>(outs[ch]);
        for (std::size_t i = 0; i < out_len; i++)
            ASSERT_LT(std::abs(got[i] - want[ch * out_len + i]),
                      1e-4f * (1 + std::abs(want[ch * out_len + i])))
                << "pinned channel " << ch << " sample " << i;
        cudaFreeHost(ins[ch]);
        cudaFreeHost(outs[ch]);
    }
}

TEST_F(GpuOfdm, PinnedBuffersEqualPageable)
{
    auto rng = make_rng(504);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 2;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 40, in_len = lay.in_samples(0, nsym),
                      out_len = lay.out_samples(0, nsym);
    const std::vector<unsigned char> in = random_input(rng, c.input, 2 * in_len, 0.5f);
    gpu_ofdm_fft gpu(c, { 0 }, 7, 3);
    std::vector<cf> pageable(2 * out_len);
    gpu.process({ in.data(), in_len, pageable.data(), out_len, 0, nsym });
    void *pin_in, *pin_out;
    ASSERT_EQ(cudaMallocHost(&pin_in, in.size()), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pin_out, pageable.size() * sizeof(cf)), cudaSuccess);
    std::memcpy(pin_in, in.data(), in.size());
    std::memset(pin_out, 0xff, pageable.size() * sizeof(cf));
    gpu.process({ pin_in, in_len, pin_out, out_len, 0, nsym });
    EXPECT_EQ(std::memcmp(pin_out, pageable.data(), pageable.size() * sizeof(cf)), 0);
    cudaFreeHost(pin_in);
    cudaFreeHost(pin_out);
}

// A block's buffers in device memory (device-resident stream buffers between GPU
// blocks), as separate channel buffers through process(): the same bytes as pageable
// buffers, the zeroed count too (a NaN symbol among them); over two devices' chunks
// where a second device exists.
TEST_F(GpuOfdm, DeviceChannelBuffersEqualPageable)
{
    auto rng = make_rng(507);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 4;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 30, in_len = lay.in_samples(0, nsym), out_len = lay.out_samples(0, nsym);
    std::vector<unsigned char> in = random_input(rng, c.input, 4 * in_len, 0.5f);
    // In symbol 7's body: a value in its cyclic prefix is discarded, not counted.
    reinterpret_cast<cf*>(in.data())[2 * in_len + lay.time_offset(0, 7) + lay.cp_of(7) + 5] = cf(NAN, 0.0f);
    const std::size_t in_bytes = in_len * sizeof(cf), out_bytes = out_len * sizeof(cf);
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
    for (const std::vector<int>& ids : { std::vector<int>{ 0 }, std::vector<int>{ 0, 1 } }) {
        if (int(ids.size()) > devices)
            continue;
        SCOPED_TRACE(std::to_string(ids.size()) + " device(s)");
        gpu_ofdm_fft gpu(c, ids, 4, 2);
        std::vector<cf> pageable(4 * out_len);
        const std::size_t zeroed_pageable = gpu.process({ in.data(), in_len, pageable.data(), out_len, 0, nsym });
        ASSERT_EQ(zeroed_pageable, 1u);
        std::vector<device_bytes> din, dout;
        std::vector<const void*> ins;
        std::vector<void*> outs;
        for (int ch = 0; ch < 4; ch++) {
            din.emplace_back(in_bytes, 0);
            copy_bytes(din.back().get(), in.data() + ch * in_bytes, in_bytes);
            dout.emplace_back(out_bytes, 0);
            ASSERT_EQ(cudaMemset(dout.back().get(), 0xff, out_bytes), cudaSuccess); // poison
            ins.push_back(din.back().get());
            outs.push_back(dout.back().get());
        }
        ofdm_fft_io io;
        io.in_channels = ins.data();
        io.out_channels = outs.data();
        io.nsym = nsym;
        EXPECT_EQ(gpu.process(io), zeroed_pageable);
        for (int ch = 0; ch < 4; ch++) {
            std::vector<cf> got(out_len);
            copy_bytes(got.data(), outs[std::size_t(ch)], out_bytes);
            EXPECT_EQ(std::memcmp(got.data(), pageable.data() + ch * out_len, out_bytes), 0) << "channel " << ch;
        }
    }
}

TEST_F(GpuOfdm, NonFiniteSymbolsComeOutZeroAndAreCounted)
{
    auto rng = make_rng(505);
    std::unique_ptr<gpu_ofdm_fft> gpu;
    const auto make = [&](const ofdm_fft_config& c) {
        gpu = std::make_unique<gpu_ofdm_fft>(c, std::vector<int>{ 0 }, 4, 2);
        return gpumimo_test::ofdm_process(
            [&](const ofdm_fft_io& io) { return gpu->process(io); });
    };
    gpumimo_test::check_non_finite_symbols(rng, make);
    gpumimo_test::check_non_finite_carriers(rng, make);
}

TEST_F(GpuOfdm, BadArgumentsAreRefused)
{
    ofdm_fft_config c;
    EXPECT_THROW(gpu_ofdm_fft(c, {}), std::invalid_argument);
    EXPECT_THROW(gpu_ofdm_fft(c, { 99 }), std::invalid_argument);
    c.fft_len = 7;
    EXPECT_THROW(gpu_ofdm_fft(c, { 0 }), std::invalid_argument);
    c.fft_len = 64;
    c.channels = 2;
    gpu_ofdm_fft gpu(c, { 0 });
    std::vector<cf> in(128), out(128);
    EXPECT_THROW(gpu.process({ in.data(), 10, out.data(), 64, 0, 1 }),
                 std::invalid_argument);
    EXPECT_EQ(gpu.process({ in.data(), 64, out.data(), 64, 0, 1 }), 0u);
}

TEST_F(GpuOfdm, DeviceResidentEqualsHostToHost)
{
    // The same chunks through the same kernels and plans: identical bytes, both
    // directions, the caller's channel strides kept on the device.
    auto rng = make_rng(507);
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c = lte_like(512, dir);
        c.channels = 4;
        c.input =
            dir == fft_direction::forward ? sample_format::sc16 : sample_format::fc16;
        c.output = sample_format::fc32;
        const ofdm_fft_layout lay(c);
        const std::size_t first = 3, nsym = 29;
        const std::size_t in_stride = lay.in_samples(first, nsym) + 9;
        const std::size_t out_stride = lay.out_samples(first, nsym) + 4;
        const std::size_t ob = bytes_per_sample(c.output);
        const std::vector<unsigned char> in =
            random_input(rng, c.input, 4 * in_stride, 0.5f);
        std::vector<unsigned char> host(4 * out_stride * ob, 0), dev(host.size(), 0xff);
        gpu_ofdm_fft gpu(c, { 0 }, 6, 3);
        gpu.process({ in.data(), in_stride, host.data(), out_stride, first, nsym });
        void *d_in, *d_out;
        ASSERT_EQ(cudaMalloc(&d_in, in.size()), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_out, dev.size()), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(d_out, dev.data(), dev.size(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        cudaStream_t st;
        ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
        EXPECT_EQ(
            gpu.process_device({ d_in, in_stride, d_out, out_stride, first, nsym }, st),
            0u);
        ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dev.data(), d_out, dev.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        const std::size_t per = lay.out_samples(first, nsym) * ob;
        for (int ch = 0; ch < 4; ch++) {
            const std::size_t at = ch * out_stride * ob;
            EXPECT_EQ(std::memcmp(dev.data() + at, host.data() + at, per), 0)
                << "channel " << ch;
            for (std::size_t k = at + per; k < (ch + 1) * out_stride * ob && ch < 3; k++)
                ASSERT_EQ(dev[k], 0xff) << "gap written";
        }
        // Host memory is refused with a clear error.
        EXPECT_THROW(
            gpu.process_device({ in.data(), in_stride, d_out, out_stride, first, nsym }),
            std::invalid_argument);
        cudaStreamDestroy(st);
        cudaFree(d_in);
        cudaFree(d_out);
    }
}

namespace {

// A circular buffer as GNU Radio's vmcircbuf makes one: the same pages mapped twice, one
// view after the other, so that a read running past the end continues at the start.
class double_mapped
{
public:
    explicit double_mapped(std::size_t bytes)
    {
        const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
        d_size = (bytes + page - 1) / page * page;
        const int fd = memfd_create("gpumimo_test_circbuf", 0);
        if (fd < 0 || ftruncate(fd, off_t(d_size)) != 0)
            throw std::runtime_error("memfd_create/ftruncate failed");
        void* area = mmap(nullptr, 2 * d_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char* base = static_cast<char*>(area);
        if (area == MAP_FAILED ||
            mmap(base, d_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
                MAP_FAILED ||
            mmap(base + d_size,
                 d_size,
                 PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED,
                 fd,
                 0) == MAP_FAILED)
            throw std::runtime_error("mmap of the two views failed");
        close(fd);
        d_base = base;
    }
    ~double_mapped() { munmap(d_base, 2 * d_size); }
    double_mapped(const double_mapped&) = delete;
    double_mapped& operator=(const double_mapped&) = delete;

    char* base() const { return d_base; }
    std::size_t size() const { return d_size; } // of one view

private:
    char* d_base = nullptr;
    std::size_t d_size = 0;
};

} // namespace

TEST_F(GpuOfdm, EnqueuedOnTwoStreamsEqualsHostToHost)
{
    // enqueue_device without a wait, the symbols split over two streams enqueued back
    // to back, on every path: the same bytes as process(), and the zeroed symbols (NaN
    // placed in some) counted into the caller's device counter; a null counter works.
    auto rng = make_rng(511);
    for (fft_fusion fusion : { fft_fusion::single_pass, fft_fusion::callbacks, fft_fusion::kernels })
        for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
            ofdm_fft_config c = lte_like(256, dir);
            c.channels = 3;
            const ofdm_fft_layout lay(c);
            const std::size_t nsym = 13, half = 6;
            const std::size_t in_stride = lay.in_samples(0, nsym) + 2;
            const std::size_t out_stride = lay.out_samples(0, nsym) + 3;
            std::vector<unsigned char> in = random_input(rng, c.input, 3 * in_stride, 0.5f);
            float* f = reinterpret_cast<float*>(in.data());
            f[2 * (1 * in_stride + lay.in_samples(0, 2) + 40)] = NAN;       // ch 1, sym 2
            f[2 * (2 * in_stride + lay.in_samples(0, 9) + 40) + 1] = INFINITY; // ch 2, sym 9
            std::unique_ptr<gpu_ofdm_fft> gpu;
            try {
                gpu = std::make_unique<gpu_ofdm_fft>(c, std::vector<int>{ 0 }, 4, 2, fusion);
            } catch (const std::runtime_error& e) {
                std::printf("no cuFFT callbacks here: %s\n", e.what());
                continue;
            }
            const std::size_t bytes = 3 * out_stride * sizeof(std::complex<float>);
            std::vector<unsigned char> host(bytes, 0), dev(bytes, 0xff);
            EXPECT_EQ(gpu->process({ in.data(), in_stride, host.data(), out_stride, 0, nsym }), 2u);
            void *d_in, *d_out;
            unsigned* d_count;
            ASSERT_EQ(cudaMalloc(&d_in, in.size()), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&d_out, bytes), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&d_count, sizeof(unsigned)), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_in, in.data(), in.size(), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_out, dev.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemset(d_count, 0, sizeof(unsigned)), cudaSuccess);
            cudaStream_t a, b;
            ASSERT_EQ(cudaStreamCreate(&a), cudaSuccess);
            ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
            const auto part = [&](std::size_t s0, std::size_t ns) {
                ofdm_fft_io io;
                io.in = static_cast<const unsigned char*>(d_in) + lay.in_samples(0, s0) * 8;
                io.in_stride = in_stride;
                io.out = static_cast<unsigned char*>(d_out) + lay.out_samples(0, s0) * 8;
                io.out_stride = out_stride;
                io.first_symbol = s0;
                io.nsym = ns;
                return io;
            };
            gpu->enqueue_device(part(0, half), a, d_count);
            gpu->enqueue_device(part(half, nsym - half), b, d_count);
            gpu->enqueue_device(part(0, 1), a); // not counted
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            unsigned count = 0;
            ASSERT_EQ(cudaMemcpy(&count, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(dev.data(), d_out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
            const char* what = fusion == fft_fusion::single_pass ? "single pass"
                               : fusion == fft_fusion::callbacks ? "callbacks"
                                                                 : "kernels";
            EXPECT_EQ(count, 2u) << what;
            const std::size_t per = lay.out_samples(0, nsym) * 8;
            for (int ch = 0; ch < 3; ch++)
                EXPECT_EQ(std::memcmp(dev.data() + ch * out_stride * 8,
                                      host.data() + ch * out_stride * 8,
                                      per),
                          0)
                    << what << ", channel " << ch;
            EXPECT_THROW(gpu->enqueue_device({ in.data(), in_stride, d_out, out_stride, 0, 1 }, a),
                         std::invalid_argument);
            cudaStreamDestroy(a);
            cudaStreamDestroy(b);
            cudaFree(d_in);
            cudaFree(d_out);
            cudaFree(d_count);
        }
}

TEST_F(GpuOfdm, StreamedCallsEqualSeparateCalls)
{
    // Three calls submitted back to back (pageable, pinned, pageable; NaN in two symbols
    // of the second), their last chunks in flight across the next call's first ones,
    // over one device and over several (several_devices()): the same bytes as three
    // process() calls, into outputs poisoned beforehand, and finish() counts the two
    // symbols.
    auto rng = make_rng(512);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 3;
    const ofdm_fft_layout lay(c);
    const std::size_t firsts[] = { 0, 17, 21 }, counts[] = { 17, 4, 23 };
    std::vector<std::vector<unsigned char>> ins, wants;
    for (int k = 0; k < 3; k++) {
        const std::size_t len = lay.in_samples(firsts[k], counts[k]);
        ins.push_back(random_input(rng, c.input, 3 * len, 0.5f));
        wants.emplace_back(3 * lay.out_samples(firsts[k], counts[k]) * sizeof(cf));
    }
    cf* second = reinterpret_cast<cf*>(ins[1].data());
    const std::size_t len1 = lay.in_samples(17, 4);
    second[len1 + lay.time_offset(17, 2) + lay.cp_of(19) + 5] = cf(NAN, 0.f); // ch 1, sym 2
    second[2 * len1 + lay.cp_of(17) + 9] = cf(0.f, INFINITY);                 // ch 2, sym 0
    const auto io_of = [&](int k, void* out) {
        return ofdm_fft_io{ ins[k].data(),
                            lay.in_samples(firsts[k], counts[k]),
                            out,
                            lay.out_samples(firsts[k], counts[k]),
                            firsts[k],
                            counts[k] };
    };
    for (const std::vector<int>& devs : { std::vector<int>{ 0 }, several_devices() }) {
        gpu_ofdm_fft gpu(c, devs, 5, 3);
        std::size_t separate = 0;
        for (int k = 0; k < 3; k++)
            separate += gpu.process(io_of(k, wants[k].data()));
        EXPECT_EQ(separate, 2u);
        void* pinned_out;
        ASSERT_EQ(cudaMallocHost(&pinned_out, wants[1].size()), cudaSuccess);
        std::vector<std::vector<unsigned char>> outs;
        for (int k = 0; k < 3; k++)
            outs.emplace_back(wants[k].size(), 0xff);
        std::memset(pinned_out, 0xff, wants[1].size());
        gpu.submit(io_of(0, outs[0].data()));
        gpu.submit(io_of(1, pinned_out));
        gpu.submit(io_of(2, outs[2].data()));
        EXPECT_EQ(gpu.finish(), 2u) << devs.size() << " devices";
        std::memcpy(outs[1].data(), pinned_out, wants[1].size());
        for (int k = 0; k < 3; k++)
            EXPECT_EQ(outs[k], wants[k]) << "call " << k << ", " << devs.size() << " devices";
        EXPECT_EQ(gpu.finish(), 0u); // nothing submitted since
        // The device-resident calls share a slot with submitted chunks: refused until
        // finish(), then the instance is as new.
        gpu.submit(io_of(0, outs[0].data()));
        void *d_in, *d_out;
        ASSERT_EQ(cudaMalloc(&d_in, ins[0].size()), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_out, wants[0].size()), cudaSuccess);
        const ofdm_fft_io dev_io{
            d_in, lay.in_samples(0, 17), d_out, lay.out_samples(0, 17), 0, 17
        };
        EXPECT_THROW(gpu.enqueue_device(dev_io, nullptr), std::logic_error);
        EXPECT_THROW(gpu.process_device(dev_io), std::logic_error);
        EXPECT_EQ(gpu.finish(), 0u);
        EXPECT_EQ(outs[0], wants[0]);
        EXPECT_EQ(gpu.process_device(dev_io), 0u);
        cudaFree(d_in);
        cudaFree(d_out);
        cudaFreeHost(pinned_out);
    }
}

TEST_F(GpuOfdm, EngineSubmitFinishEqualsReferenceAndAFailedFinishIsRedoneOnTheCpu)
{
    // The factory's engine with one call in flight (the streamed block's use): submit()
    // then finish() against the CPU reference; then with the GPU failing in finish()
    // (GPUMIMO_INJECT_GPU_FAILURE=1: call 0 is the submit, 1 the finish), the submitted
    // call redone on the CPU from the buffers the caller kept, and the engine on the CPU
    // for the calls after it.
    auto rng = make_rng(514);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 3;
    for (const char* inject : { "", "1" }) {
        if (*inject)
            ASSERT_EQ(setenv("GPUMIMO_INJECT_GPU_FAILURE", inject, 1), 0);
        auto engine = make_ofdm_fft_engine(c, "cuda");
        ASSERT_EQ(unsetenv("GPUMIMO_INJECT_GPU_FAILURE"), 0);
        ASSERT_STREQ(engine->backend(), "cuda");
        gpumimo_test::compare_with_reference(c, 3, 20, rng, [&](const ofdm_fft_io& io) {
            engine->submit(io);
            return engine->finish();
        });
        EXPECT_STREQ(engine->backend(), *inject ? "cpu" : "cuda") << "inject '" << inject << "'";
    }
}

TEST_F(GpuOfdm, RegisteredCircularBuffersWrapLikeGnuRadios)
{
    // The block page-locks its GNU Radio stream buffers (both views of each). Reads and
    // writes that start near the end of the first view run into the second; the direct
    // DMA path must see the same bytes the CPU does.
    auto rng = make_rng(507);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 3;
    c.input = sample_format::sc16;
    c.output = sample_format::fc32;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 23, in_len = lay.in_samples(0, nsym),
                      out_len = lay.out_samples(0, nsym);
    const std::size_t in_bytes = in_len * 4, out_bytes = out_len * sizeof(cf);
    std::vector<std::unique_ptr<double_mapped>> in_bufs, out_bufs;
    std::vector<host_registration> pins;
    std::vector<const void*> ins;
    std::vector<void*> outs;
    std::vector<unsigned char> all_in;
    for (int ch = 0; ch < c.channels; ch++) {
        in_bufs.push_back(std::make_unique<double_mapped>(in_bytes));
        out_bufs.push_back(std::make_unique<double_mapped>(out_bytes));
        for (const auto* b : { in_bufs.back().get(), out_bufs.back().get() }) {
            std::string why;
            pins.emplace_back(b->base(), 2 * b->size(), &why);
            ASSERT_TRUE(pins.back().pinned()) << why;
        }
        // Start a third of the way from the end of the first view (a different place
        // per channel), so every transfer wraps.
        const std::size_t in_at = in_bufs.back()->size() - in_bytes / (3 + ch);
        const std::size_t out_at = out_bufs.back()->size() - out_bytes / (3 + ch);
        const std::vector<unsigned char> in = random_input(rng, c.input, in_len, 0.5f);
        all_in.insert(all_in.end(), in.begin(), in.end());
        std::memcpy(in_bufs.back()->base() + in_at, in.data(), in.size());
        std::memset(out_bufs.back()->base(), 0xff, out_bufs.back()->size()); // poison
        ins.push_back(in_bufs.back()->base() + in_at);
        outs.push_back(out_bufs.back()->base() + out_at);
        cudaPointerAttributes attr;
        ASSERT_EQ(cudaPointerGetAttributes(&attr, outs.back()), cudaSuccess);
        ASSERT_EQ(attr.type, cudaMemoryTypeHost) << "registered memory not seen as pinned";
    }
    std::vector<cf> want(c.channels * out_len);
    cpu_ofdm_fft(c).process({ all_in.data(), in_len, want.data(), out_len, 0, nsym });
    gpu_ofdm_fft gpu(c, { 0 }, 5, 3);
    ofdm_fft_io io;
    io.in_channels = ins.data();
    io.out_channels = outs.data();
    io.nsym = nsym;
    gpu.process(io);
    for (int ch = 0; ch < c.channels; ch++) {
        const cf* got = static_cast<const cf*>(outs[ch]);
        for (std::size_t i = 0; i < out_len; i++)
            ASSERT_LT(std::abs(got[i] - want[ch * out_len + i]),
                      1e-4f * (1 + std::abs(want[ch * out_len + i])))
                << "channel " << ch << " sample " << i << " (written through the "
                << (i * sizeof(cf) < out_bytes / (3 + ch) ? "first" : "second")
                << " view)";
    }
}

TEST_F(GpuOfdm, SharedRegistrationsOutliveTheirFirstOwner)
{
    // A GNU Radio stream buffer is registered by the block writing it and by the one
    // reading it, and the writer may stop (and let go) first: the range must stay
    // page-locked until its last owner is gone.
    std::vector<unsigned char> bytes(std::size_t(1) << 21, 3);
    unsigned char* const base = bytes.data();
    const auto registered = [](void* p) {
        unsigned flags = 0;
        const bool yes = cudaHostGetFlags(&flags, p) == cudaSuccess;
        cudaGetLastError();
        return yes;
    };
    std::string why;
    auto writer = std::make_unique<host_registration>(base, bytes.size() / 2, &why);
    ASSERT_TRUE(writer->pinned()) << why;
    auto reader = std::make_unique<host_registration>(base, bytes.size() / 2, &why);
    EXPECT_TRUE(reader->pinned()) << why;
    host_registration part(base, 4096, &why); // within the registered range
    EXPECT_TRUE(part.pinned()) << why;
    why.clear();
    host_registration longer(base, bytes.size(), &why);
    EXPECT_FALSE(longer.pinned());
    EXPECT_FALSE(why.empty());
    why.clear();
    host_registration overlapping(base + 8192, bytes.size() / 2, &why);
    EXPECT_FALSE(overlapping.pinned());
    EXPECT_FALSE(why.empty());
    writer.reset();
    EXPECT_TRUE(registered(base)) << "the reader's range was unregistered with the writer";
    reader.reset();
    EXPECT_TRUE(registered(base)); // `part` still holds it
    {
        host_registration gone(std::move(part));
        EXPECT_TRUE(gone.pinned());
        EXPECT_FALSE(part.pinned());
    }
    EXPECT_FALSE(registered(base)) << "the last owner left the range registered";
    host_registration again(base, bytes.size(), &why); // the whole range, fresh
    EXPECT_TRUE(again.pinned()) << why;
}
