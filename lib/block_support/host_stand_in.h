/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Host memory standing in for a block's device-resident stream buffers while its engine
 * runs on the CPU.
 */
#ifndef INCLUDED_GPUMIMO_HOST_STAND_IN_H
#define INCLUDED_GPUMIMO_HOST_STAND_IN_H

#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * A GPU block's ports are device-resident (device_stream_buffer) for the flowgraph's
 * life, but its engine can leave the GPU mid-run (core/engine.h: after a GPU failure it
 * stays on the CPU), and the CPU engine cannot reach device memory. The block then
 * hands the engine, port by port, a host copy of each input in device memory and host
 * scratch for each output in device memory, and after the engine copies that scratch to
 * the device (write_back). Ports in host memory pass through untouched, so a block may
 * route every call through here; it costs a pointer query a port.
 *
 * The scratch grows to the largest call seen and is then reused (nothing is allocated
 * in later calls of that size); its pointers stay valid until the next call for the
 * same port.
 */
class host_stand_in
{
public:
    /*! Forgets the outputs of the last call (before a call's first output()). */
    void begin() { d_outputs.clear(); }

    /*! Input `port`'s `bytes` at p, readable by the CPU: p itself in host memory, else a
     *  host copy of it. */
    const void* input(std::size_t port, const void* p, std::size_t bytes);
    /*! Where the engine writes output `port`'s `bytes` at p: p itself in host memory,
     *  else host scratch that write_back() copies to p. */
    void* output(std::size_t port, void* p, std::size_t bytes);
    /*! Copies every output's scratch since begin() to its device memory. */
    void write_back();

    template <typename T>
    const T* input(std::size_t port, const T* p, std::size_t items)
    {
        return static_cast<const T*>(input(port, static_cast<const void*>(p), items * sizeof(T)));
    }
    template <typename T>
    T* output(std::size_t port, T* p, std::size_t items)
    {
        return static_cast<T*>(output(port, static_cast<void*>(p), items * sizeof(T)));
    }

private:
    static unsigned char* room(std::vector<std::vector<unsigned char>>& scratch,
                               std::size_t port,
                               std::size_t bytes);

    struct pending_output {
        void* device;
        const void* host;
        std::size_t bytes;
    };
    std::vector<std::vector<unsigned char>> d_in, d_out; // [port]
    std::vector<pending_output> d_outputs;               // since begin()
};

} // namespace gpumimo
} // namespace gr

#endif
