/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator over several GPUs: a CUDA link engine per device, each batch's
 * frames cut into one contiguous share per device and run side by side, one host
 * thread each. Every frame is drawn from its own index (link_random.h), so the counts
 * are those of one GPU running the whole batch.
 */
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <exception>
#include <thread>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class multi_gpu_link_engine : public link_engine
{
public:
    explicit multi_gpu_link_engine(const link_config& config)
    {
        for (const int device : config.devices) {
            link_config one = config;
            one.device = device;
            one.devices.clear();
            d_engines.push_back(make_gpu_link_engine(std::make_shared<const link_setup>(one)));
        }
    }

    link_counts run(std::uint32_t point, std::uint64_t first_frame, std::size_t frames,
                    float noise_var) override
    {
        const std::size_t n = d_engines.size();
        std::vector<link_counts> counts(n);
        std::vector<std::exception_ptr> errors(n);
        std::vector<std::thread> threads;
        std::size_t start = 0;
        for (std::size_t i = 0; i < n; i++) {
            const std::size_t share = frames / n + (i < frames % n ? 1 : 0);
            if (share == 0)
                continue;
            threads.emplace_back([&, i, start, share] {
                try {
                    counts[i] = d_engines[i]->run(point, first_frame + start, share, noise_var);
                } catch (...) {
                    errors[i] = std::current_exception();
                }
            });
            start += share;
        }
        for (auto& t : threads)
            t.join();
        link_counts total;
        for (std::size_t i = 0; i < n; i++) {
            if (errors[i]) // the fallback policy redoes the whole batch elsewhere
                std::rethrow_exception(errors[i]);
            total += counts[i];
        }
        return total;
    }

    // A batch is cut over the devices: each takes its own default.
    std::size_t default_max_batch() const override
    {
        return d_engines.size() * d_engines.front()->default_max_batch();
    }
    std::string backend() const override { return "cuda"; }

private:
    std::vector<std::unique_ptr<link_engine>> d_engines;
};

} // namespace

std::unique_ptr<link_engine> make_link_engine_on_devices(std::shared_ptr<const link_setup> setup)
{
    if (setup->config.devices.size() <= 1) {
        if (setup->config.devices.empty() || setup->config.devices[0] == setup->config.device)
            return make_gpu_link_engine(setup);
        link_config one = setup->config;
        one.device = one.devices[0];
        one.devices.clear();
        return make_gpu_link_engine(std::make_shared<const link_setup>(one));
    }
    return std::make_unique<multi_gpu_link_engine>(setup->config);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
