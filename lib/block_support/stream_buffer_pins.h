/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Page-locking a GPU block's stream buffers, shared between the blocks that touch the
 * same buffer.
 */
#ifndef INCLUDED_GPUMIMO_STREAM_BUFFER_PINS_H
#define INCLUDED_GPUMIMO_STREAM_BUFFER_PINS_H

#include <gnuradio/gpumimo/core/backend.h>

#include <gnuradio/block.h>
#include <gnuradio/logger.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief The page-locked (cudaHostRegister) input and output stream buffers of a block
 * that copies them to and from the GPU.
 *
 * Pageable stream buffers cost a host memcpy per chunk into pinned staging memory on the
 * block's one thread, often the flowgraph's limit; registered, the GPU engines copy them
 * by DMA in place (they ask CUDA whether a range is page-locked). A double-mapped
 * (circular) buffer is two consecutive views of the same pages: both are registered,
 * since a read may run into the second. A buffer between two such blocks is registered
 * once and held by both: it is unregistered when the last of them releases it, so a
 * block that stops first never unpins memory the other is still copying.
 */
class stream_buffer_pins
{
public:
    /*! Registers (or shares) every input and output buffer of `block` (at start()); logs
     *  at info level the ones that cannot be page-locked, with CUDA's reason. */
    void pin(gr::block& block, const gr::logger_ptr& logger);
    /*! Lets go of them (at stop()). */
    void release() { d_held.clear(); }
    std::size_t pinned() const { return d_held.size(); }

private:
    std::vector<std::shared_ptr<core::host_registration>> d_held;
};

/*! Logs at info level (at start()) when `block`'s first input buffer holds fewer than
 *  `wanted` items, what a full call (`call`, in words) needs: a block's calls take what
 *  its input buffer holds, GNU Radio sizes that from the block's output multiple, and
 *  on the GPU each call costs a round trip whatever it carries. */
void log_small_input_buffer(gr::block& block,
                            const gr::logger_ptr& logger,
                            std::size_t wanted,
                            const std::string& call);

/*!
 * \brief A GPU block's public interface (Block, a gr::block) with its stream buffers
 * page-locked from start() to stop() while its engine runs on the GPU (backend() is
 * "cuda" at start), so that the engine copies them by DMA in place. The block's impl
 * derives from this instead of Block and constructs gr::block (a virtual base) itself.
 */
template <typename Block>
class pinned_while_on_gpu : public Block
{
public:
    bool start() override
    {
        if (std::string(this->backend()) == "cuda")
            d_pins.pin(*this, this->d_logger);
        return Block::start();
    }
    bool stop() override
    {
        d_pins.release();
        return Block::stop();
    }

private:
    stream_buffer_pins d_pins;
};

} // namespace gpumimo
} // namespace gr

#endif
