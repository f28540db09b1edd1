/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "device_stream_buffer.h"

#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {

gr::buffer_type device_stream_buffer::type(gr::buftype<device_stream_buffer, device_stream_buffer>{});

gr::buffer_sptr device_stream_buffer::make_buffer(int nitems,
                                                  std::size_t sizeof_item,
                                                  uint64_t downstream_lcm_nitems,
                                                  uint32_t downstream_max_out_mult,
                                                  gr::block_sptr link,
                                                  gr::block_sptr buf_owner)
{
    return gr::buffer_sptr(new device_stream_buffer(
        nitems, sizeof_item, downstream_lcm_nitems, downstream_max_out_mult, link, buf_owner));
}

device_stream_buffer::device_stream_buffer(int nitems,
                                           std::size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner)
    : buffer_single_mapped(nitems, sizeof_item, downstream_lcm_nitems, downstream_max_out_mult,
                           link, buf_owner)
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "device_stream_buffer");
    // The device of the block that owns the buffer (the one declaring the port).
    for (const gr::block_sptr& b : { buf_owner, link })
        if (const auto* user = dynamic_cast<const device_buffer_user*>(b.get())) {
            d_device = user->buffer_device();
            break;
        }
    if (!allocate_buffer(nitems))
        throw std::bad_alloc();
}

device_stream_buffer::~device_stream_buffer() = default;

bool device_stream_buffer::do_allocate_buffer(std::size_t final_nitems, std::size_t sizeof_item)
{
    const std::size_t bytes = final_nitems * sizeof_item;
    d_buffer.reset(new char[bytes]());
    d_base = d_buffer.get();
    std::string why;
    d_host_lock = core::host_registration(d_base, bytes, &why);
    if (!d_host_lock.pinned())
        d_logger->info("host side not page-locked ({}): its copies are slower", why);
    d_device_mem = core::device_bytes(bytes, d_device);
    d_scratch = core::device_bytes(bytes, d_device);
    return true;
}

bool device_stream_buffer::on_device() const
{
    return d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE;
}

void* device_stream_buffer::write_pointer()
{
    char* base = on_device() ? d_device_mem.get() : d_base;
    return base + std::size_t(d_write_index) * d_sizeof_item;
}

const void* device_stream_buffer::_read_pointer(unsigned int read_index)
{
    const char* base = on_device() ? d_device_mem.get() : d_base;
    return base + std::size_t(read_index) * d_sizeof_item;
}

void device_stream_buffer::post_work(int)
{
    // Nothing to copy: both ends use the device side, or both the host side.
}

void* device_stream_buffer::move_on_device(void* dst, const void* src, std::size_t bytes)
{
    // Unread items moved towards the front (dst below src). A device copy's ranges must
    // not overlap: in pieces no longer than the distance moved, front first, each piece
    // lands where the pieces before it were read from; a short distance (many pieces)
    // goes through the scratch area, two copies of everything.
    auto* to = static_cast<char*>(dst);
    const auto* from = static_cast<const char*>(src);
    const std::size_t distance = std::size_t(from > to ? from - to : to - from);
    constexpr std::size_t most_pieces = 4;
    if (from > to && distance > 0 && bytes <= most_pieces * distance) {
        for (std::size_t done = 0; done < bytes; done += distance)
            core::copy_bytes(to + done, from + done, std::min(distance, bytes - done));
        return dst;
    }
    core::copy_bytes(d_scratch.get(), src, bytes);
    core::copy_bytes(dst, d_scratch.get(), bytes);
    return dst;
}

bool device_stream_buffer::input_blocked_callback(int items_required,
                                                  int items_avail,
                                                  unsigned read_index)
{
    if (!on_device())
        return input_blocked_callback_logic(
            items_required, items_avail, read_index, d_base,
            [](void* d, const void* s, std::size_t n) { return std::memcpy(d, s, n); },
            [](void* d, const void* s, std::size_t n) { return std::memmove(d, s, n); });
    return input_blocked_callback_logic(
        items_required, items_avail, read_index, d_device_mem.get(),
        [](void* d, const void* s, std::size_t n) {
            core::copy_bytes(d, s, n);
            return d;
        },
        [this](void* d, const void* s, std::size_t n) { return move_on_device(d, s, n); });
}

bool device_stream_buffer::output_blocked_callback(int output_multiple, bool force)
{
    if (!on_device())
        return output_blocked_callback_logic(
            output_multiple, force, d_base,
            [](void* d, const void* s, std::size_t n) { return std::memmove(d, s, n); });
    return output_blocked_callback_logic(
        output_multiple, force, d_device_mem.get(),
        [this](void* d, const void* s, std::size_t n) { return move_on_device(d, s, n); });
}

namespace {

device_stream_buffer* device_buffer_of(const gr::buffer_sptr& b)
{
    return dynamic_cast<device_stream_buffer*>(b.get());
}

} // namespace

bool reads_device(gr::block& block, int port)
{
    const auto* b = device_buffer_of(block.detail()->input(port)->buffer());
    return b && b->on_device();
}

bool writes_device(gr::block& block, int port)
{
    const auto* b = device_buffer_of(block.detail()->output(port));
    return b && b->on_device();
}

bool cpu_engine_on_device_ports(gr::block& block, const std::string& backend)
{
    return backend != "cuda" && (reads_device(block, 0) || writes_device(block, 0));
}

} // namespace gpumimo
} // namespace gr
