/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "stream_buffer_pins.h"
#include "device_stream_buffer.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

namespace gr {
namespace gpumimo {

namespace {

// The buffers registered by any block of this process, by base address: each held by
// the blocks that pinned it and unregistered with the last of them.
std::mutex registry_mutex;
std::map<const void*, std::weak_ptr<core::host_registration>> registry;

std::shared_ptr<core::host_registration>
share_registration(const void* base, std::size_t bytes, std::string* why)
{
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(base);
    if (it != registry.end())
        if (auto held = it->second.lock())
            return held;
    for (auto e = registry.begin(); e != registry.end();) // forget released buffers
        e = e->second.expired() ? registry.erase(e) : std::next(e);
    auto r = std::make_shared<core::host_registration>(base, bytes, why);
    if (!r->pinned())
        return nullptr;
    registry[base] = r;
    return r;
}

} // namespace

void log_small_input_buffer(gr::block& block,
                            const gr::logger_ptr& logger,
                            std::size_t wanted,
                            const std::string& call)
{
    if (!block.detail() || block.detail()->ninputs() == 0)
        return;
    const long items = block.detail()->input(0)->buffer()->bufsize();
    if (items >= 0 && std::size_t(items) < wanted)
        logger->info("input buffer holds {} items, {} needs {}: give the upstream block a "
                     "larger min_output_buffer (GRC: Advanced) for full GPU speed",
                     items,
                     call,
                     wanted);
}

void stream_buffer_pins::pin(gr::block& block, const gr::logger_ptr& logger)
{
    release();
    const gr::block_detail_sptr detail = block.detail();
    if (!detail)
        return;
    std::vector<buffer_sptr> buffers;
    for (int c = 0; c < detail->ninputs(); c++)
        buffers.push_back(detail->input(c)->buffer());
    for (int c = 0; c < detail->noutputs(); c++)
        buffers.push_back(detail->output(c));
    // A device_stream_buffer page-locks its host side itself.
    buffers.erase(std::remove_if(buffers.begin(), buffers.end(),
                                 [](const buffer_sptr& b) {
                                     return dynamic_cast<device_stream_buffer*>(b.get()) != nullptr;
                                 }),
                  buffers.end());
    std::string why;
    for (const buffer_sptr& b : buffers) {
        const std::size_t views =
            b->get_mapping_type() == buffer_mapping_type::double_mapped ? 2 : 1;
        if (auto r = share_registration(
                b->base(), views * std::size_t(b->bufsize()) * b->get_sizeof_item(), &why))
            d_held.push_back(std::move(r));
    }
    if (d_held.size() < buffers.size())
        logger->info("{} of {} stream buffers page-locked for the GPU here ({}); the others "
                     "are staged",
                     d_held.size(),
                     buffers.size(),
                     why);
    else if (!d_held.empty()) // trace: Debian's GNU Radio prints debug lines by default
        logger->trace("all {} stream buffers page-locked for the GPU", d_held.size());
}

} // namespace gpumimo
} // namespace gr
