/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Benchmark of the LDPC decoders (core only): decoded information throughput of the
 * 802.16e rate-1/2 code (n = 2304, k = 1152) at 10 iterations, the CUDA decoder beside
 * the CPU reference on all cores: min-sum in single and half precision, sum-product.
 *
 *   kernel:        decode_device on device-resident LLRs (4 input sets rotated), CUDA
 *                  events, median of 21 runs after 3 warm-up runs, early termination off
 *                  (every codeword runs 10 iterations: the fixed-work figure)
 *   host to host:  decode() from pinned float or int8 LLRs to decisions, wall clock,
 *                  median of 7, with the PCIe ceiling it meets (LLR bytes in / H2D rate)
 *   early stop:    kernel time with early termination at Eb/N0 = 2 dB (BPSK, AWGN)
 *   CPU:           cpu_ldpc_decoder, one per hardware thread, wall clock, median of 3
 *
 *   gpumimo_ldpc_bench [--quick] [--frames N] [--code NAME]
 *
 * --code: another code by name (ldpc_code_by_name: wimax_<n>, nr_bg<g>_z<Z>[_rows<r>],
 * an alist path); its information bits are the encoder's k.
 */
#include "common/cli_numbers.h"
#include "bench_common.h"

#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

using namespace gr::gpumimo::core;
using wall = std::chrono::steady_clock;

namespace {

std::vector<float> noisy_codewords(const ldpc_encoder& enc, std::size_t frames, double ebn0_db,
                                   std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const std::size_t n = std::size_t(enc.n());
    const double rate = double(enc.k()) / double(n);
    const double sigma2 = 1.0 / (2.0 * rate * std::pow(10.0, ebn0_db / 10.0));
    std::normal_distribution<double> noise(0.0, std::sqrt(sigma2));
    std::bernoulli_distribution coin(0.5);
    std::vector<std::uint8_t> info(std::size_t(enc.k())), c(n);
    std::vector<float> llr(frames * n);
    for (std::size_t f = 0; f < frames; f++) {
        for (auto& b : info)
            b = coin(rng);
        enc.encode(info.data(), c.data());
        for (std::size_t v = 0; v < n; v++)
            llr[f * n + v] = float(-2.0 * (1.0 - 2.0 * c[v] + noise(rng)) / sigma2);
    }
    return llr;
}

double seconds_since(wall::time_point t0)
{
    return std::chrono::duration<double>(wall::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    std::size_t frames = 16384;
    std::string code_name = "wimax_2304";
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--frames" && i + 1 < argc)
            frames = std::size_t(gpumimo_cli::or_exit("gpumimo_ldpc_bench", [&] { return gpumimo_cli::whole("--frames", argv[++i], 1, 1LL << 30); }));
        else if (a == "--code" && i + 1 < argc)
            code_name = argv[++i];
        else {
            std::fprintf(stderr, "usage: gpumimo_ldpc_bench [--quick] [--frames N] [--code NAME]\n");
            return 2;
        }
    }
    if (quick)
        frames = std::min<std::size_t>(frames, 8192);
    try {
        const ldpc_code code = ldpc_code_by_name(code_name);
        const ldpc_encoder enc(code); // once: a large code's takes seconds to build
        const std::size_t n = std::size_t(code.n), k = std::size_t(enc.k());
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        cudaDeviceProp prop;
        check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        const ceilings bus = measure_ceilings();
        std::printf("LDPC decoding, %s (%zu x %zu, %zu edges, %zu layers), %zu codewords per "
                    "batch\ndevice: %s; CPU reference on %u threads; H2D %.1f GB/s\n\n",
                    code.name.c_str(), std::size_t(code.m), n, code.edges(), code.layers.size(),
                    frames, prop.name, threads, bus.h2d);

        // 4 input sets at 2 dB (rotated), resident on the device and pinned on the host.
        const int sets = 4;
        const std::size_t values = frames * n;
        std::vector<float*> d_llr(sets);
        float* h_llr = nullptr;
        std::int8_t* h_q = nullptr;
        check(cudaMallocHost(&h_llr, values * sizeof(float)), "cudaMallocHost");
        check(cudaMallocHost(&h_q, values), "cudaMallocHost");
        for (int s = 0; s < sets; s++) {
            const auto llr = noisy_codewords(enc, frames, 2.0, 100 + s);
            check(cudaMalloc(&d_llr[s], values * sizeof(float)), "cudaMalloc");
            check(cudaMemcpy(d_llr[s], llr.data(), values * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
            if (s == 0) {
                std::copy(llr.begin(), llr.end(), h_llr);
                for (std::size_t i = 0; i < values; i++) // int8: q = 4 LLR, saturated
                    h_q[i] = std::int8_t(std::lround(std::fmax(-127.0f, std::fmin(127.0f, 4.0f * llr[i]))));
            }
        }
        std::uint8_t *d_bits = nullptr, *h_bits = nullptr;
        check(cudaMalloc(&d_bits, values), "cudaMalloc");
        check(cudaMallocHost(&h_bits, values), "cudaMallocHost");

        std::printf("%-13s %-22s %12s %12s %10s\n", "algorithm", "measure", "time", "Gbit/s", "note");
        for (ldpc_algorithm algo : { ldpc_algorithm::min_sum, ldpc_algorithm::min_sum_half,
                                    ldpc_algorithm::sum_product }) {
            ldpc_decoder_config cfg;
            cfg.algorithm = algo;
            cfg.max_iterations = 10;
            cfg.early_termination = false;
            const double info_bits = double(frames) * double(k);
            auto row = [&](const char* what, double seconds, const std::string& note) {
                std::printf("%-13s %-22s %9.3f ms %12.2f %s\n", to_string(algo), what,
                            1e3 * seconds, info_bits / seconds / 1e9, note.c_str());
            };

            gpu_ldpc_decoder gpu(code, cfg, frames);
            std::vector<double> t;
            for (int r = 0; r < 24; r++) {
                gpu.decode_device(d_llr[r % sets], frames, { nullptr, d_bits, nullptr, nullptr });
                gpu.synchronize();
                if (r >= 3)
                    t.push_back(gpu.last_kernel_ms() * 1e-3);
            }
            row("GPU kernel, 10 it.", median(t), "");

            t.clear();
            for (int r = 0; r < 8; r++) {
                const auto t0 = wall::now();
                gpu.decode(h_llr, frames, { nullptr, h_bits, nullptr, nullptr });
                if (r >= 1)
                    t.push_back(seconds_since(t0));
            }
            char note[96];
            std::snprintf(note, sizeof note, "PCIe ceiling %.1f Gbit/s",
                          bus.h2d * 1e9 / (double(n) * sizeof(float)) * double(k) / 1e9);
            row("GPU host, float in", median(t), note);
            t.clear();
            for (int r = 0; r < 8; r++) {
                const auto t0 = wall::now();
                gpu.decode(h_q, 4.0f, frames, { nullptr, h_bits, nullptr, nullptr });
                if (r >= 1)
                    t.push_back(seconds_since(t0));
            }
            std::snprintf(note, sizeof note, "PCIe ceiling %.1f Gbit/s",
                          bus.h2d * 1e9 / double(n) * double(k) / 1e9);
            row("GPU host, int8 in", median(t), note);

            ldpc_decoder_config early = cfg;
            early.early_termination = true;
            gpu_ldpc_decoder gpu_early(code, early, frames);
            std::vector<int> its(frames);
            int* d_its = nullptr;
            check(cudaMalloc(&d_its, frames * sizeof(int)), "cudaMalloc");
            t.clear();
            for (int r = 0; r < 24; r++) {
                gpu_early.decode_device(d_llr[r % sets], frames, { nullptr, d_bits, d_its, nullptr });
                gpu_early.synchronize();
                if (r >= 3)
                    t.push_back(gpu_early.last_kernel_ms() * 1e-3);
            }
            check(cudaMemcpy(its.data(), d_its, frames * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
            cudaFree(d_its);
            double mean_its = 0;
            for (int i : its)
                mean_its += i;
            std::snprintf(note, sizeof note, "2 dB, mean %.2f iterations", mean_its / double(frames));
            row("GPU kernel, early stop", median(t), note);

            // The CPU reference on every hardware thread, a share of a smaller batch each.
            const std::size_t per_thread = algo == ldpc_algorithm::min_sum ? (quick ? 8 : 32) : (quick ? 2 : 8);
            const std::size_t cpu_frames = per_thread * threads;
            std::vector<double> tc;
            for (int r = 0; r < 3; r++) {
                std::vector<std::thread> pool;
                const auto t0 = wall::now();
                for (unsigned th = 0; th < threads; th++)
                    pool.emplace_back([&, th] {
                        cpu_ldpc_decoder cpu(code, cfg);
                        const std::size_t count = std::min(per_thread, frames);
                        std::size_t first = th * per_thread % frames;
                        if (first + count > frames)
                            first = 0;
                        std::vector<std::uint8_t> bits(count * n);
                        cpu.decode(h_llr + first * n, count, { nullptr, bits.data(), nullptr, nullptr });
                    });
                for (auto& p : pool)
                    p.join();
                tc.push_back(seconds_since(t0) * double(frames) / double(cpu_frames));
            }
            std::snprintf(note, sizeof note, "%u threads, %zu codewords", threads, cpu_frames);
            row("CPU, 10 it.", median(tc), note);
        }
        for (float* p : d_llr)
            cudaFree(p);
        cudaFree(d_bits);
        cudaFreeHost(h_llr);
        cudaFreeHost(h_q);
        cudaFreeHost(h_bits);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpumimo_ldpc_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
