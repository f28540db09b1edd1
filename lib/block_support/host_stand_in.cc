/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "host_stand_in.h"

#include <gnuradio/gpumimo/core/device_bytes.h>

namespace gr {
namespace gpumimo {

unsigned char* host_stand_in::room(std::vector<std::vector<unsigned char>>& scratch,
                                   std::size_t port,
                                   std::size_t bytes)
{
    if (scratch.size() <= port)
        scratch.resize(port + 1);
    if (scratch[port].size() < bytes)
        scratch[port].resize(bytes);
    return scratch[port].data();
}

const void* host_stand_in::input(std::size_t port, const void* p, std::size_t bytes)
{
    if (bytes == 0 || !core::is_device_memory(p))
        return p;
    unsigned char* host = room(d_in, port, bytes);
    core::copy_bytes(host, p, bytes);
    return host;
}

void* host_stand_in::output(std::size_t port, void* p, std::size_t bytes)
{
    if (bytes == 0 || !core::is_device_memory(p))
        return p;
    unsigned char* host = room(d_out, port, bytes);
    d_outputs.push_back({ p, host, bytes });
    return host;
}

void host_stand_in::write_back()
{
    for (const pending_output& o : d_outputs)
        core::copy_bytes(o.device, o.host, o.bytes);
    d_outputs.clear();
}

} // namespace gpumimo
} // namespace gr
