/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_OFDM_FFT_IMPL_H
#define INCLUDED_GPUMIMO_OFDM_FFT_IMPL_H

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>
#include "block_support/block_faults.h"
#include "block_support/device_stream_buffer.h"
#include "block_support/engine_logging.h"
#include "block_support/host_stand_in.h"
#include "block_support/stream_buffer_pins.h"

#include <gnuradio/gpumimo/ofdm_fft.h>

#include <pmt/pmt.h>

#include <memory>
#include <optional>
#include <vector>

namespace gr {
namespace gpumimo {

class ofdm_fft_impl : public pinned_while_on_gpu<ofdm_fft>, public device_buffer_user
{
public:
    // engine: made by make() first, since the forward outputs' buffers depend on where
    // it runs; batch: symbols per channel per call.
    ofdm_fft_impl(const core::ofdm_fft_config& config,
                  early_engine<core::ofdm_fft_engine>&& engine,
                  int device,
                  std::size_t batch,
                  const std::string& sync_tag,
                  bool device_buffers,
                  bool streamed);

    int buffer_device() const override { return d_device; }

    std::string backend() const override { return d_engine->backend(); }
    int carriers() const override { return d_layout.carriers(); }
    std::uint64_t symbols() const override { return d_symbols; }
    std::uint64_t dropped_samples() const override { return d_dropped_samples; }
    std::uint64_t dropped_symbols() const override { return d_dropped_symbols; }
    std::uint64_t zeroed_symbols() const override { return d_zeroed; }
    std::uint64_t work_failures() const override { return d_faults.count(); }

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    // Symbols from pattern position d_phase whose time samples fit in `samples`.
    std::size_t symbols_fitting(std::size_t samples, std::size_t most) const;
    // Offset (from now) of the next sync tag on channel 0 within `window` items: the
    // first one at or after `from`; -1 if none.
    long next_sync(std::uint64_t from, std::uint64_t window);
    // Whether the symbols from d_phase on end exactly `samples` items in, where the
    // prefix pattern starts over (a frame starting there needs no realignment).
    bool period_ends_at(std::size_t samples) const;
    // Drops `n` input items of every channel, keeping their tags for the next output.
    void drop(std::size_t n);
    // The engine's call on in_items input and out_items output items a channel; through
    // host memory where the ports are on the device and the engine on the CPU (it fell
    // back after a GPU failure).
    std::size_t run_engine(const core::ofdm_fft_io& io, std::size_t in_items, std::size_t out_items);
    // Every output's first `items` items zero.
    void zero_outputs(const std::vector<void*>& outputs, std::size_t items);

    // A transform handed to the engine: what land() needs once it is done.
    struct fft_call {
        std::size_t phase = 0; // pattern position of its first symbol
        std::size_t nsym = 0, in_items = 0, out_items = 0;
        std::vector<const void*> in; // [channel]; io points here until finish()
        std::vector<void*> out;
        bool submitted = false;  // in the engine: finish() it
        std::size_t zeroed = 0;  // done at once: the symbols it zeroed
    };
    // Whether a transform stays in flight across calls (streamed, buffers that stay).
    bool streaming() const;
    // Transforms nsym symbols of every channel: in flight (streaming()) or landed.
    void transform(std::size_t nsym,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star& output_items);
    // Hands a call to the engine (submit() or, not streaming, run_engine()); a failure
    // leaves its symbols as zeros.
    void launch(fft_call& call);
    // Waits for a submitted call, then its zeroed count, its tags to the output, its
    // input consumed: it is produced with this general_work's return (d_unproduced).
    void land(fft_call& call);
    // What is at hand: dropped, transformed or left in flight (general_work returns
    // what landed).
    void work_forward(int noutput_items,
                     std::size_t available,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items);
    void work_inverse(int noutput_items,
                     std::size_t available,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items);

    const int d_device; // where device-resident outputs lie
    const core::ofdm_fft_config d_config;
    const core::ofdm_fft_layout d_layout;
    const bool d_forward;
    const std::size_t d_batch;
    const bool d_streamed;        // one transform in flight (on double-mapped buffers)
    bool d_buffers_stay = false;  // every port's buffer double-mapped (start())
    const pmt::pmt_t d_sync_key; // PMT_NIL: no sync tag
    std::unique_ptr<core::ofdm_fft_engine> d_engine; // FFTW or the GPU (make_ofdm_fft_engine)
    bool on_gpu() const { return std::string(d_engine->backend()) == "cuda"; }

    bool d_aligned;
    std::size_t d_phase = 0;           // pattern position of the next symbol
    std::uint64_t d_sync_used = ~0ull; // offset of the sync tag the pattern started at
    std::vector<std::vector<tag_t>> d_held_tags; // from dropped input, per channel
    std::vector<tag_t> d_tags;                   // scratch
    std::optional<fft_call> d_in_flight;         // submitted by the last general_work
    std::size_t d_unproduced = 0; // items landed in this general_work, not yet produced
    host_stand_in d_stand_in;                    // device buffers, engine on the CPU
    std::vector<const void*> d_staged_in_at;     // [channel], through d_stand_in
    std::vector<void*> d_staged_out_at;          // [channel], through d_stand_in

    std::uint64_t d_symbols = 0, d_dropped_samples = 0, d_dropped_symbols = 0,
                  d_zeroed = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

} // namespace gpumimo
} // namespace gr

#endif
