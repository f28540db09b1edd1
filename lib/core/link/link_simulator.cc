/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator: backend choice, batches and the stopping rule.
 */
#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
double ratio(std::uint64_t a, std::uint64_t b) { return b ? double(a) / double(b) : 0.0; }
} // namespace

double link_point::fer() const { return ratio(counts.frame_errors, counts.frames); }
double link_point::ber() const { return ratio(counts.bit_errors, counts.info_bits); }
double link_point::raw_ber() const { return ratio(counts.raw_bit_errors, counts.coded_bits); }
double link_point::mean_iterations() const { return ratio(counts.iterations, counts.frames); }

link_simulator::link_simulator(const link_config& config)
    : d_setup(std::make_shared<const link_setup>(config))
{
    d_gpu = choose_gpu_engine(
        d_setup->config.backend,
        [&](std::string*) { return make_link_engine_on_devices(d_setup); },
        &d_fallback);
    d_gpu_in_use = gpu_fallback(d_gpu != nullptr);
    d_cpu = make_cpu_link_engine(d_setup); // the fallback policy's redo (core/engine.h)
}

link_simulator::~link_simulator() = default;

link_point
link_simulator::run_point(std::uint32_t point, double snr_db, const progress_fn& progress)
{
    const link_config& c = d_setup->config;
    link_point result;
    result.snr_db = snr_db;
    result.ebn0_db = d_setup->ebn0_db(snr_db);
    const float noise_var = d_setup->noise_variance(snr_db);

    const link_engine& first = d_gpu_in_use.on_gpu() ? *d_gpu : *d_cpu;
    const std::size_t max_batch =
        std::max<std::size_t>(1, c.max_batch_frames ? c.max_batch_frames
                                                    : first.default_max_batch());
    std::size_t batch = std::max<std::size_t>(1, max_batch / 16);
    const auto start = std::chrono::steady_clock::now();
    while (result.counts.frames < c.max_frames &&
           (c.target_frame_errors == 0 || result.counts.frame_errors < c.target_frame_errors)) {
        const std::size_t frames =
            std::size_t(std::min<std::uint64_t>(batch, c.max_frames - result.counts.frames));
        const std::uint64_t first_frame = result.counts.frames;
        result.counts += d_gpu_in_use.run(
            [&] { return d_gpu->run(point, first_frame, frames, noise_var); },
            [&] { return d_cpu->run(point, first_frame, frames, noise_var); });
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress)
            progress(result);
        batch = std::min(batch * 2, max_batch);
    }
    return result;
}

std::vector<link_point> link_simulator::run(const std::vector<double>& snr_db,
                                            const progress_fn& progress)
{
    std::vector<link_point> points;
    for (std::size_t i = 0; i < snr_db.size(); i++)
        points.push_back(run_point(std::uint32_t(i), snr_db[i], progress));
    return points;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
