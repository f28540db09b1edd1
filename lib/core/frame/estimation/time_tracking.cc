/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tracking the channel in time across a frame's pilot blocks: each block estimated as
 * the first, linear interpolation between them (docs/frame.md, "Tracking in time").
 */
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

std::vector<time_weight> time_weights(const frame_format& frame)
{
    frame.validate();
    std::vector<time_weight> out(std::size_t(frame.payload_symbols));
    const int B = frame.pilot_blocks();
    if (B == 1)
        return out; // block 0, w = 0
    const double half = 0.5 * (frame.streams - 1);
    for (int s = 0; s < frame.payload_symbols; s++) {
        // Payload symbol s lies between the block before its segment and the next.
        const int b = s / frame.pilot_interval;
        const double t = frame.payload_symbol_index(s);
        const double t0 = frame.pilot_block_start(b) + half, t1 = frame.pilot_block_start(b + 1) + half;
        out[std::size_t(s)] = { b, float((t - t0) / (t1 - t0)) };
    }
    return out;
}

void interpolate_estimate(const channel_estimate& a,
                          const channel_estimate& b,
                          float w,
                          channel_estimate& out)
{
    if (a.h.size() != b.h.size() || a.error_var.size() != b.error_var.size() ||
        a.noise_eff.size() != b.noise_eff.size())
        throw std::invalid_argument("interpolate_estimate: the estimates differ in shape");
    out.rx = a.rx;
    out.tx = a.tx;
    out.carriers = a.carriers;
    out.method = a.method;
    if (w == 0) { // block a's own symbols' neighbours: a exactly, a broken b unseen
        out.h = a.h;
        out.noise_var = a.noise_var;
        out.error_var = a.error_var;
        out.noise_eff = a.noise_eff;
        return;
    }
    const float v = 1 - w;
    out.h.resize(a.h.size());
    for (std::size_t i = 0; i < a.h.size(); i++)
        out.h[i] = v * a.h[i] + w * b.h[i];
    out.noise_var = v * a.noise_var + w * b.noise_var;
    out.error_var.resize(a.error_var.size());
    out.noise_eff.resize(a.noise_eff.size());
    for (std::size_t c = 0; c < a.error_var.size(); c++) {
        out.error_var[c] = v * v * a.error_var[c] + w * w * b.error_var[c];
        if (c < out.noise_eff.size())
            out.noise_eff[c] = effective_noise(out.noise_var, out.tx, out.error_var[c]);
    }
}

void estimate_pilot_blocks(const frame_format& frame,
                           const std::complex<float>* carriers_rx,
                           int rx,
                           channel_smoother& smoother,
                           std::vector<channel_estimate>& blocks)
{
    const int B = frame.pilot_blocks();
    if (blocks.size() < std::size_t(B))
        blocks.resize(std::size_t(B));
    for (int b = 0; b < B; b++)
        blocks[std::size_t(b)] = estimate_channel(frame, carriers_rx, rx, frame.symbols(), smoother, b);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
