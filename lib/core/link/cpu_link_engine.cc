/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator's CPU engine: the reference. Frame by frame, make_link_frame, then
 * cpu_detector, de-interleaving, cpu_ldpc_decoder and the counts; frames are spread
 * over threads, each with its own detector, decoder and buffers.
 */
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// One thread's tools and buffers for a frame.
class frame_worker
{
public:
    explicit frame_worker(const link_setup& s)
        : d_s(s),
          d_detector(s.config.algo, s.config.mod, s.config.nt, s.config.nr, s.config.detector),
          d_info(s.layout.k),
          d_bits(s.layout.frame_bits),
          d_h(std::size_t(s.layout.channels) * s.config.nr * s.config.nt),
          d_y(std::size_t(s.layout.vectors) * s.config.nr),
          d_llr(s.layout.frame_bits),
          d_codeword_llr(s.layout.n),
          d_decided(s.layout.n),
          d_decided_info(s.layout.k)
    {
        if (s.coded())
            d_decoder = std::make_unique<cpu_ldpc_decoder>(s.config.code, s.config.decoder);
    }

    void run(std::uint32_t point, std::uint64_t frame, float noise_var, link_counts& counts)
    {
        const link_layout& l = d_s.layout;
        make_link_frame(
            d_s, point, frame, noise_var, d_info.data(), d_bits.data(), d_h.data(), d_y.data());

        mimo_batch batch;
        batch.y = d_y.data();
        batch.h = d_h.data();
        batch.noise_var = &noise_var;
        batch.batch = std::size_t(l.vectors);
        batch.nt = d_s.config.nt;
        batch.nr = d_s.config.nr;
        batch.group = std::size_t(l.group);
        d_detector.detect(batch, d_llr.data(), 1);

        // De-interleave the codeword's LLRs (the padding's are dropped) and count the
        // detector's own errors on them.
        std::uint64_t raw_errors = 0;
        for (int i = 0; i < l.n; i++) {
            const std::uint32_t at = d_s.interleaver[i];
            d_codeword_llr[i] = d_llr[at];
            raw_errors += std::uint8_t(d_llr[at] > 0.0f) != d_bits[at];
        }

        int iterations = 0;
        if (d_decoder) {
            ldpc_outputs out;
            out.bits = d_decided.data();
            out.iterations = &iterations;
            d_decoder->decode(d_codeword_llr.data(), 1, out);
            d_s.encoder->extract(d_decided.data(), d_decided_info.data());
        } else {
            for (int i = 0; i < l.k; i++)
                d_decided_info[i] = d_codeword_llr[i] > 0.0f;
        }
        std::uint64_t errors = 0;
        for (int i = 0; i < l.k; i++)
            errors += d_decided_info[i] != d_info[i];

        counts.frames += 1;
        counts.frame_errors += errors != 0;
        counts.info_bits += std::uint64_t(l.k);
        counts.bit_errors += errors;
        counts.coded_bits += std::uint64_t(l.n);
        counts.raw_bit_errors += raw_errors;
        counts.iterations += std::uint64_t(iterations);
    }

private:
    const link_setup& d_s;
    cpu_detector d_detector;
    std::unique_ptr<cpu_ldpc_decoder> d_decoder;
    std::vector<std::uint8_t> d_info, d_bits;
    std::vector<cf32> d_h, d_y;
    std::vector<float> d_llr, d_codeword_llr;
    std::vector<std::uint8_t> d_decided, d_decided_info;
};

class cpu_link_engine : public link_engine
{
public:
    explicit cpu_link_engine(std::shared_ptr<const link_setup> setup) : d_setup(std::move(setup))
    {
        unsigned threads = d_setup->config.threads;
        if (threads == 0)
            threads = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned t = 0; t < threads; t++)
            d_workers.push_back(std::make_unique<frame_worker>(*d_setup));
    }

    link_counts run(std::uint32_t point,
                    std::uint64_t first_frame,
                    std::size_t frames,
                    float noise_var) override
    {
        const std::size_t threads = std::min(d_workers.size(), std::max<std::size_t>(frames, 1));
        std::vector<link_counts> counts(threads);
        // Thread t takes frames t, t + threads, ...: which frames a thread makes does
        // not change them, only the order of the sums, which are integers.
        auto work = [&](std::size_t t) {
            for (std::size_t f = t; f < frames; f += threads)
                d_workers[t]->run(point, first_frame + f, noise_var, counts[t]);
        };
        std::vector<std::thread> pool;
        std::exception_ptr failure;
        std::mutex failure_lock;
        for (std::size_t t = 1; t < threads; t++)
            pool.emplace_back([&, t] {
                try {
                    work(t);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(failure_lock);
                    failure = std::current_exception();
                }
            });
        try {
            work(0);
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_lock);
            failure = std::current_exception();
        }
        for (auto& th : pool)
            th.join();
        if (failure)
            std::rethrow_exception(failure);
        link_counts total;
        for (const auto& c : counts)
            total += c;
        return total;
    }

    std::size_t default_max_batch() const override { return d_workers.size() * 16; }
    std::string backend() const override { return "cpu"; }

private:
    std::shared_ptr<const link_setup> d_setup;
    std::vector<std::unique_ptr<frame_worker>> d_workers;
};

} // namespace

std::unique_ptr<link_engine> make_cpu_link_engine(std::shared_ptr<const link_setup> setup)
{
    return std::make_unique<cpu_link_engine>(std::move(setup));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
