/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "device_stream_buffer.h"

#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>

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

bool device_stream_buffer::device_side_written() const
{
    return d_transfer_type == gr::transfer_type::DEVICE_TO_HOST ||
           d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE;
}

bool device_stream_buffer::device_side_read() const
{
    return d_transfer_type == gr::transfer_type::HOST_TO_DEVICE ||
           d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE;
}

void* device_stream_buffer::write_pointer()
{
    char* base = device_side_written() ? d_device_mem.get() : d_base;
    return base + std::size_t(d_write_index) * d_sizeof_item;
}

const void* device_stream_buffer::_read_pointer(unsigned int read_index)
{
    const char* base = device_side_read() ? d_device_mem.get() : d_base;
    return base + std::size_t(read_index) * d_sizeof_item;
}

void device_stream_buffer::post_work(int nitems)
{
    if (nitems <= 0)
        return;
    // The write index has not moved yet: what the writer wrote starts there.
    const std::size_t at = std::size_t(d_write_index) * d_sizeof_item;
    const std::size_t bytes = std::size_t(nitems) * d_sizeof_item;
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
        core::copy_bytes(d_device_mem.get() + at, d_base + at, bytes);
        break;
    case gr::transfer_type::DEVICE_TO_HOST:
        core::copy_bytes(d_base + at, d_device_mem.get() + at, bytes);
        break;
    case gr::transfer_type::DEVICE_TO_DEVICE:
        break;
    default:
        throw std::runtime_error("device_stream_buffer: a buffer between two CPU ends");
    }
}

void* device_stream_buffer::move_on_device(void* dst, const void* src, std::size_t bytes)
{
    // The ranges may overlap (unread items moved to the front): through the scratch area.
    core::copy_bytes(d_scratch.get(), src, bytes);
    core::copy_bytes(dst, d_scratch.get(), bytes);
    return dst;
}

bool device_stream_buffer::input_blocked_callback(int items_required,
                                                  int items_avail,
                                                  unsigned read_index)
{
    const auto on_device_copy = [](void* d, const void* s, std::size_t n) {
        core::copy_bytes(d, s, n);
        return d;
    };
    const auto on_device_move = [this](void* d, const void* s, std::size_t n) {
        return move_on_device(d, s, n);
    };
    const auto on_host_copy = [](void* d, const void* s, std::size_t n) { return std::memcpy(d, s, n); };
    const auto on_host_move = [](void* d, const void* s, std::size_t n) { return std::memmove(d, s, n); };
    if (device_side_read()) {
        const bool moved = input_blocked_callback_logic(items_required, items_avail, read_index,
                                                        d_device_mem.get(), on_device_copy,
                                                        on_device_move);
        // Both sides alike: the read pointer is back at 0 and the items up to the write
        // pointer moved; the host side (the writer's, HOST_TO_DEVICE) follows.
        if (moved && d_transfer_type == gr::transfer_type::HOST_TO_DEVICE)
            core::copy_bytes(d_base, d_device_mem.get(), std::size_t(d_write_index) * d_sizeof_item);
        return moved;
    }
    const bool moved = input_blocked_callback_logic(items_required, items_avail, read_index, d_base,
                                                    on_host_copy, on_host_move);
    if (moved && d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        core::copy_bytes(d_device_mem.get(), d_base, std::size_t(d_write_index) * d_sizeof_item);
    return moved;
}

bool device_stream_buffer::output_blocked_callback(int output_multiple, bool force)
{
    const auto on_device_move = [this](void* d, const void* s, std::size_t n) {
        return move_on_device(d, s, n);
    };
    const auto on_host_move = [](void* d, const void* s, std::size_t n) { return std::memmove(d, s, n); };
    if (device_side_written()) {
        const bool moved =
            output_blocked_callback_logic(output_multiple, force, d_device_mem.get(), on_device_move);
        if (moved && d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
            core::copy_bytes(d_base, d_device_mem.get(), std::size_t(d_write_index) * d_sizeof_item);
        return moved;
    }
    const bool moved = output_blocked_callback_logic(output_multiple, force, d_base, on_host_move);
    if (moved && d_transfer_type == gr::transfer_type::HOST_TO_DEVICE)
        core::copy_bytes(d_device_mem.get(), d_base, std::size_t(d_write_index) * d_sizeof_item);
    return moved;
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
    return b && (b->transfer() == gr::transfer_type::HOST_TO_DEVICE ||
                 b->transfer() == gr::transfer_type::DEVICE_TO_DEVICE);
}

bool writes_device(gr::block& block, int port)
{
    const auto* b = device_buffer_of(block.detail()->output(port));
    return b && (b->transfer() == gr::transfer_type::DEVICE_TO_HOST ||
                 b->transfer() == gr::transfer_type::DEVICE_TO_DEVICE);
}

} // namespace gpumimo
} // namespace gr
