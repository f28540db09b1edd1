/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_ESTIMATE_ITEMS_H
#define INCLUDED_GPUMIMO_CORE_ESTIMATE_ITEMS_H

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A frame's channel estimates as a stream beside its payload (mimo_chanest's
 * estimate output into mimo_detector's estimate input, docs/frame.md): one item per
 * payload symbol, so that the stream runs at the payload's rate. A record is one
 * estimate:
 *
 *   bytes [0, 8 U R T):             H [used carrier][rx][tx], complex float
 *   bytes [8 U R T, 8 U R T + 4 U): the detectors' noise per used carrier, float
 *
 * (U used carriers, R antennas, T streams, P payload symbols).
 *
 * A frame with one estimate (no pilot blocks) spreads its record over its P items: an
 * item holds the record's bytes over P, rounded up to 16 bytes (so H and the noise stay
 * aligned in every record); the rest of the last items is padding. The frame's first
 * payload symbol carries the record's first item, so a reader finds the whole record at
 * the frame's mimo_chan_est tag, in device memory where both blocks run on the GPU.
 *
 * A frame tracked in time (pilot blocks, frame_format::pilot_interval) has an estimate
 * per payload symbol (core::interpolate_estimate between its blocks): each item holds
 * its own symbol's record, rounded up to 16 bytes, and every symbol has its own tag.
 */
struct estimate_items {
    std::size_t used = 0, rx = 0, tx = 0, payload_symbols = 0;
    bool per_symbol = false; // a record per payload symbol, not one per frame

    estimate_items(std::size_t used_,
                   std::size_t rx_,
                   std::size_t tx_,
                   std::size_t payload_symbols_,
                   bool per_symbol_ = false)
        : used(used_), rx(rx_), tx(tx_), payload_symbols(payload_symbols_), per_symbol(per_symbol_)
    {
        if (used == 0 || rx == 0 || tx == 0 || payload_symbols == 0)
            throw std::invalid_argument("estimate_items: every size must be > 0");
    }
    std::size_t h_values() const { return used * rx * tx; }
    std::size_t noise_offset() const { return h_values() * 8; }
    std::size_t record_bytes() const { return noise_offset() + used * 4; }
    std::size_t item_bytes() const
    {
        const std::size_t unit = 16 * (per_symbol ? 1 : payload_symbols);
        return (record_bytes() + unit - 1) / unit * 16;
    }
    /*! Records a frame has: one, or one per payload symbol. */
    std::size_t records_per_frame() const { return per_symbol ? payload_symbols : 1; }
    /*! Items from one of a frame's records to the next (per_symbol: 1). */
    std::size_t items_per_record() const { return per_symbol ? 1 : payload_symbols; }
    /*! Bytes from a frame's first record to the end of its last. */
    std::size_t frame_record_bytes() const
    {
        return (records_per_frame() - 1) * item_bytes() + record_bytes();
    }
};

/*! Estimate e as a record at `record` (host memory, items.record_bytes()): its H, then
 *  its noise_eff, or noise_var on every carrier where it has no noise_eff (least
 *  squares told as exact). std::invalid_argument where e is not of the items' shape. */
inline void write_estimate_record(const estimate_items& items,
                                  const channel_estimate& e,
                                  unsigned char* record)
{
    if (e.h.size() != items.h_values())
        throw std::invalid_argument("write_estimate_record: the estimate is not of the records' shape");
    std::memcpy(record, e.h.data(), items.noise_offset());
    float* noise = reinterpret_cast<float*>(record + items.noise_offset());
    if (e.noise_eff.size() == items.used)
        std::copy(e.noise_eff.begin(), e.noise_eff.end(), noise);
    else
        std::fill_n(noise, items.used, e.noise_var);
}

/*! The record at `record` (host memory, items.record_bytes()) back as an estimate: its
 *  H and its noise as noise_eff, N0 noise_var (a record does not hold it); out's
 *  vectors reused. */
inline void read_estimate_record(const estimate_items& items,
                                 const unsigned char* record,
                                 float noise_var,
                                 channel_estimate& out)
{
    out.rx = int(items.rx);
    out.tx = int(items.tx);
    out.carriers = int(items.used);
    out.noise_var = noise_var;
    out.h.resize(items.h_values());
    std::memcpy(out.h.data(), record, items.noise_offset());
    out.noise_eff.resize(items.used);
    std::memcpy(out.noise_eff.data(), record + items.noise_offset(), items.used * sizeof(float));
}

/*! The estimate items of `format`'s frames received on `antennas` antennas: a record
 *  per payload symbol where the frame has pilot blocks. */
inline estimate_items estimate_items_of(const frame_format& format, int antennas)
{
    return estimate_items(std::size_t(format.num.used_carriers), std::size_t(antennas),
                          std::size_t(format.streams), std::size_t(format.payload_symbols),
                          format.pilot_blocks() > 1);
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
