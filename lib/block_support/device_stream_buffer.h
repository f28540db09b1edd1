/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GNU Radio stream buffer whose data lives on the GPU (GNU Radio 3.10's custom buffers,
 * gr/buffer_type.h, as host_buffer and gr-cuda's cuda_buffer do it).
 */
#ifndef INCLUDED_GPUMIMO_DEVICE_STREAM_BUFFER_H
#define INCLUDED_GPUMIMO_DEVICE_STREAM_BUFFER_H

#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>

#include <cstddef>
#include <string>

namespace gr {
namespace gpumimo {

/*! What a block declaring device-resident ports tells their buffers: the CUDA device its
 *  engine runs on, where they allocate. */
class device_buffer_user
{
public:
    virtual ~device_buffer_user() = default;
    virtual int buffer_device() const = 0;
};

/*!
 * \brief A stream buffer on the GPU: a GPU block of this module that declares it for a
 * port (io_signature with device_stream_buffer::type) reads and writes device memory
 * there when the block at the other end declares it too (GNU Radio sets the transfer
 * type DEVICE_TO_DEVICE from the two ends' types, flat_flowgraph): the data never
 * leaves the device. With a CPU block at the other end (DEVICE_TO_HOST or
 * HOST_TO_DEVICE) both ends use the host side, page-locked, which the GPU block's engine
 * copies by DMA in place, as it does a plain buffer it page-locks: nothing is copied
 * twice. So post_work() never copies; the engines tell host from device memory by the
 * pointers themselves.
 *
 * A writer's work() ends with its GPU work finished (every engine here synchronises its
 * stream), so that a reader on another stream sees it. Single-mapped (no wrap-around
 * view): when a reader needs items that wrap past the end, GNU Radio moves the unread
 * items to the front (input_blocked_callback), on the device through a scratch area as
 * large as the buffer, since the ranges may overlap.
 *
 * GNU Radio keeps one transfer type a buffer: a device port feeding a CPU block and a
 * GPU block at once is refused by GNU Radio when the flowgraph starts (a RuntimeError
 * from top_block.start(), "... has transfer type DEVICE_TO_DEVICE assigned. Cannot
 * change to transfer type DEVICE_TO_HOST"), before any thread runs.
 */
class device_stream_buffer : public gr::buffer_single_mapped
{
public:
    static gr::buffer_type type;

    static gr::buffer_sptr make_buffer(int nitems,
                                       std::size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link = gr::block_sptr(),
                                       gr::block_sptr buf_owner = gr::block_sptr());

    ~device_stream_buffer() override;

    void post_work(int nitems) override;
    bool do_allocate_buffer(std::size_t final_nitems, std::size_t sizeof_item) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blocked_callback(int items_required, int items_avail, unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;

    /*! Whether both ends use the device side (DEVICE_TO_DEVICE). */
    bool on_device() const;

private:
    device_stream_buffer(int nitems,
                         std::size_t sizeof_item,
                         uint64_t downstream_lcm_nitems,
                         uint32_t downstream_max_out_mult,
                         gr::block_sptr link,
                         gr::block_sptr buf_owner);

    void* move_on_device(void* dst, const void* src, std::size_t bytes);

    int d_device = 0;
    core::device_bytes d_device_mem, d_scratch;
    core::host_registration d_host_lock; // the host side, for DMA
};

/*! Whether `block`'s input `port` / output `port` is read / written in device memory in
 *  this flowgraph (its buffer a device_stream_buffer between two GPU ends). The engines
 *  tell host from device memory by the pointers themselves; the blocks ask this where
 *  they must copy for an engine on the CPU. */
bool reads_device(gr::block& block, int port);
bool writes_device(gr::block& block, int port);

/*! Whether `block`, its engine on `backend`, must reach its device-resident ports
 *  through host memory (host_stand_in.h): an engine on the CPU (a fallback after a GPU
 *  failure, or a configuration the GPU cannot run) with input or output 0 on the
 *  device (a block's ports are all of one kind). */
bool cpu_engine_on_device_ports(gr::block& block, const std::string& backend);

} // namespace gpumimo
} // namespace gr

#endif
