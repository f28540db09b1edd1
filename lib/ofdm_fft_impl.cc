/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT block: symbol alignment, tags and counters around the core's transform
 * (core::gpu_ofdm_fft on the GPU, core::fftw_ofdm_fft on the CPU).
 */
#include "block_support/engine_logging.h"
#include "block_support/stream_buffer_sizes.h"
#include "ofdm_fft_impl.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpumimo {

namespace {

// A stream item: one sample (time side) or one vector of the occupied carriers.
int item_size(const core::ofdm_fft_config& c, bool input)
{
    const bool time_side = input == (c.direction == core::fft_direction::forward);
    const core::sample_format f = input ? c.input : c.output;
    return int(core::bytes_per_sample(f)) *
           (time_side ? 1 : core::ofdm_fft_layout(c).carriers());
}

// Symbols per channel per call when not given: about 2^22 samples over all channels
// (four GPU chunks of 2^20), within [16, 2048]; buffers of two batches stay within
// tens of MB.
std::size_t default_batch(const core::ofdm_fft_config& c)
{
    const std::size_t per =
        (std::size_t(1) << 22) / (std::size_t(c.channels) * c.fft_len);
    return std::clamp<std::size_t>(per, 16, 2048);
}

} // namespace

ofdm_fft::sptr ofdm_fft::make(int fft_len,
                              const std::vector<int>& cp_lengths,
                              const std::vector<int>& occupied_carriers,
                              bool forward,
                              const std::string& input_format,
                              const std::string& output_format,
                              bool shift,
                              float scale,
                              const std::vector<float>& window,
                              int channels,
                              const std::string& backend,
                              const std::vector<int>& devices,
                              int batch,
                              const std::string& sync_tag,
                              bool device_buffers,
                              bool streamed)
{
    core::ofdm_fft_config c;
    c.fft_len = fft_len;
    c.cp_lengths = cp_lengths;
    c.carriers = occupied_carriers;
    c.direction = forward ? core::fft_direction::forward : core::fft_direction::inverse;
    c.input = core::sample_format_from_string(input_format);
    c.output = core::sample_format_from_string(output_format);
    c.shift = shift;
    c.scale = scale;
    c.window = window;
    c.channels = channels;
    core::validate(c); // before the io signatures are made from it
    if (batch < 0)
        throw std::invalid_argument("batch must be 0 (automatic) or positive");
    const std::size_t symbols = batch > 0 ? std::size_t(batch) : default_batch(c);
    core::ofdm_fft_options options;
    options.devices = devices;
    options.symbols_per_chunk = std::max<std::size_t>(1, symbols / 4); // copies, kernels
                                                                       // and copies overlap
    auto engine = make_early_engine([&](std::string* why) {
        return core::make_ofdm_fft_engine(c, backend, options, why);
    });
    const int device = devices.empty() ? 0 : devices.front();
    return gnuradio::make_block_sptr<ofdm_fft_impl>(c, std::move(engine), device, symbols, sync_tag,
                                                    device_buffers, streamed);
}

namespace {

// The forward transform's samples and carriers stay on the GPU (device-resident stream
// buffers, from a GPU mimo_ofdm_sync and to a GPU mimo_chanest) where the engine runs
// there; the inverse's ports (for a transmitter: a radio or a file) in host memory.
gr::io_signature::sptr fft_signature(const core::ofdm_fft_config& c, bool input, bool on_device_gpu)
{
    const bool on_device = on_device_gpu && c.direction == core::fft_direction::forward;
    return gr::io_signature::make(c.channels, c.channels, item_size(c, input),
                                  on_device ? device_stream_buffer::type
                                            : gr::buffer_double_mapped::type);
}

} // namespace

ofdm_fft_impl::ofdm_fft_impl(const core::ofdm_fft_config& config,
                             early_engine<core::ofdm_fft_engine>&& engine,
                             int device,
                             std::size_t batch,
                             const std::string& sync_tag,
                             bool device_buffers,
                             bool streamed)
    : gr::block("ofdm_fft",
                fft_signature(config, true, engine.on_gpu() && device_buffers),
                fft_signature(config, false, engine.on_gpu() && device_buffers)),
      d_device(device),
      d_config(config),
      d_layout(config),
      d_forward(config.direction == core::fft_direction::forward),
      d_batch(batch),
      d_streamed(streamed),
      d_sync_key(sync_tag.empty() ? pmt::PMT_NIL : pmt::intern(sync_tag)),
      d_aligned(sync_tag.empty() || !d_forward),
      d_held_tags(config.channels)
{
    d_engine = adopt_engine(d_logger, std::move(engine), "the CPU (FFTW)");
    d_logger->info("{}", d_engine->path());

    // One output item per symbol (forward) or per time sample (inverse).
    const std::size_t period = d_layout.cp_period();
    const std::size_t period_len = d_layout.time_samples(0, period);
    if (d_forward)
        set_relative_rate(period, period_len);
    else
        set_relative_rate(period_len, period);
    const std::size_t symbol_max = config.fft_len + d_layout.longest_cp();
    set_min_output_buffer_on_every_port(*this,
                                        long(2 * d_batch * (d_forward ? 1 : symbol_max)));
    // On the GPU a call transforms up to a batch: a block before it on the host gets a
    // buffer that holds one, whatever the user set (or did not) as its min_output_buffer.
    // Not a device-resident input (a GPU mimo_ofdm_sync before it): that single-mapped
    // buffer, so enlarged, moved its unread items to its front through the device ever
    // more often, and the chain of GPU blocks fell from 137 to 67 Msample/s per channel
    // with 4 links and from 377 to 20 with one (H200, gpumimo_rx_rate --chain).
    const bool device_input = on_gpu() && device_buffers && d_forward;
    if (on_gpu() && !device_input)
        ask_upstream_for_items(*this, 1, d_forward ? d_layout.time_samples(0, d_batch) : d_batch);
    set_tag_propagation_policy(TPP_DONT); // tags move with their symbols (transform())
}

bool ofdm_fft_impl::start()
{
    // A port's buffer is the neighbour's type where that block asks for a custom one (a
    // GPU mimo_chanest after this block on the CPU): what GNU Radio made is what counts.
    d_buffers_stay = true;
    for (int c = 0; c < d_config.channels; c++)
        d_buffers_stay &= detail()->input(c)->buffer()->get_mapping_type() ==
                              gr::buffer_mapping_type::double_mapped &&
                          detail()->output(c)->get_mapping_type() ==
                              gr::buffer_mapping_type::double_mapped;
    // Small upstream buffers mean small batches: fine on the CPU, slow on the GPU.
    if (on_gpu())
        log_small_input_buffer(*this,
                               d_logger,
                               d_forward ? d_layout.time_samples(0, d_batch) : d_batch,
                               "a batch of " + std::to_string(d_batch) + " symbols");
    return pinned_while_on_gpu::start(); // the stream buffers page-locked on the GPU
}

bool ofdm_fft_impl::stop()
{
    // A transform still in flight writes into the stream buffers: wait for it before
    // they are unpinned. Its input stays unconsumed and its output unproduced, so the
    // pattern goes back to its first symbol: a restarted flowgraph transforms it again.
    if (d_in_flight) {
        if (d_in_flight->submitted) {
            try {
                d_engine->finish();
            } catch (...) {
                d_faults.caught("the transform in flight at stop() failed");
            }
        }
        d_phase = d_in_flight->phase;
        d_in_flight.reset();
    }
    return pinned_while_on_gpu::stop();
}

bool ofdm_fft_impl::streaming() const
{
    // A single-mapped stream buffer (device-resident, or a host-side one made for a
    // neighbour's custom type) moves its unread items to its front when a writer or
    // reader runs short of room: the memory of a call in flight could move under it.
    // A double-mapped buffer never moves.
    return d_streamed && d_buffers_stay;
}

std::size_t ofdm_fft_impl::symbols_fitting(std::size_t samples, std::size_t most) const
{
    std::size_t n = 0, used = 0;
    while (n < most) {
        used += d_config.fft_len + d_layout.cp_of(d_phase + n);
        if (used > samples)
            break;
        n++;
    }
    return n;
}

void ofdm_fft_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    int need;
    if (d_in_flight) // its input, unconsumed, is at hand: the next call lands it
        need = int(d_in_flight->in_items);
    else if (!d_aligned)
        need = 1; // dropping until the first sync tag
    else if (d_forward)
        // One symbol's samples, not noutput_items': asked for more than is at hand,
        // GNU Radio halves noutput_items until the input suffices, and a call then took
        // about half of what an upstream block had just written (about 2 of the
        // synchroniser's 5 frames a call in the chain of GPU blocks); work_forward()
        // takes every whole symbol at hand, up to the room and the batch.
        need = int(d_layout.time_samples(d_phase, 1));
    else
        need =
            int(std::max<std::size_t>(1, symbols_fitting(noutput_items, noutput_items)));
    std::fill(ninput_items_required.begin(), ninput_items_required.end(), need);
}

bool ofdm_fft_impl::period_ends_at(std::size_t samples) const
{
    std::size_t n = 0, used = 0;
    while (used < samples)
        used += d_config.fft_len + d_layout.cp_of(d_phase + n++);
    return used == samples && (d_phase + n) % d_layout.cp_period() == 0;
}

long ofdm_fft_impl::next_sync(std::uint64_t from, std::uint64_t window)
{
    if (pmt::is_null(d_sync_key) || window == 0)
        return -1;
    get_tags_in_range(d_tags, 0, from, from + window, d_sync_key);
    long best = -1;
    for (const tag_t& t : d_tags)
        if (t.offset != d_sync_used && (best < 0 || long(t.offset - from) < best))
            best = long(t.offset - from);
    return best < 0 ? -1 : long(from - nitems_read(0)) + best;
}

void ofdm_fft_impl::drop(std::size_t n)
{
    for (int c = 0; c < d_config.channels; c++) {
        get_tags_in_range(d_tags, c, nitems_read(c), nitems_read(c) + n);
        d_held_tags[c].insert(d_held_tags[c].end(), d_tags.begin(), d_tags.end());
    }
    consume_each(int(n));
    d_dropped_samples += n;
}

std::size_t ofdm_fft_impl::run_engine(const core::ofdm_fft_io& io,
                                      std::size_t in_items,
                                      std::size_t out_items)
{
    // Buffers on the GPU and the engine on the CPU (it fell back after a GPU failure):
    // through host memory.
    if (!cpu_engine_on_device_ports(*this, d_engine->backend()))
        return d_engine->process(io);
    const std::size_t C = std::size_t(d_config.channels);
    const std::size_t in_bytes = in_items * input_signature()->sizeof_stream_item(0);
    const std::size_t out_bytes = out_items * output_signature()->sizeof_stream_item(0);
    d_staged_in_at.resize(C);
    d_staged_out_at.resize(C);
    d_stand_in.begin();
    for (std::size_t c = 0; c < C; c++) {
        d_staged_in_at[c] = d_stand_in.input(c, io.in_channels[c], in_bytes);
        d_staged_out_at[c] = d_stand_in.output(c, io.out_channels[c], out_bytes);
    }
    core::ofdm_fft_io staged = io;
    staged.in_channels = d_staged_in_at.data();
    staged.out_channels = d_staged_out_at.data();
    const std::size_t zeroed = d_engine->process(staged);
    d_stand_in.write_back();
    return zeroed;
}

void ofdm_fft_impl::zero_outputs(const std::vector<void*>& outputs, std::size_t items)
{
    const std::size_t bytes = items * output_signature()->sizeof_stream_item(0);
    for (void* out : outputs)
        core::zero_bytes(out, bytes);
}

void ofdm_fft_impl::transform(std::size_t nsym,
                              gr_vector_const_void_star& input_items,
                              gr_vector_void_star& output_items)
{
    fft_call call;
    call.phase = d_phase;
    call.nsym = nsym;
    call.in_items = d_forward ? d_layout.time_samples(d_phase, nsym) : nsym;
    call.out_items = d_forward ? nsym : d_layout.time_samples(d_phase, nsym);
    call.in.assign(input_items.begin(), input_items.end());
    call.out.assign(output_items.begin(), output_items.end());
    launch(call);
    d_phase = (d_phase + nsym) % d_layout.cp_period();
    if (call.submitted) // landed by the next general_work, which the input calls for
        d_in_flight = std::move(call);
    else
        land(call);
}

void ofdm_fft_impl::launch(fft_call& call)
{
    core::ofdm_fft_io io;
    io.in_channels = call.in.data();
    io.out_channels = call.out.data();
    io.first_symbol = call.phase;
    io.nsym = call.nsym;
    try { // a GPU failure is redone on the CPU by the engine (core/engine.h)
        if (streaming()) { // double-mapped host buffers: no host stand-in needed
            d_engine->submit(io);
            call.submitted = true;
        } else {
            call.zeroed = run_engine(io, call.in_items, call.out_items);
        }
    } catch (...) { // the symbols leave as zeros, counted: the stream stays aligned
        d_faults.caught("its " + std::to_string(call.nsym) + " symbols leave as zeros");
        call.submitted = false;
        try {
            zero_outputs(call.out, call.out_items);
        } catch (...) { // device memory out of reach: what it holds goes on
            d_faults.caught("its outputs could not be zeroed");
        }
        call.zeroed = call.nsym;
    }
}

void ofdm_fft_impl::land(fft_call& call)
{
    if (call.submitted) {
        call.submitted = false;
        try {
            call.zeroed = d_engine->finish();
        } catch (...) { // as launch()'s failure
            d_faults.caught("its " + std::to_string(call.nsym) + " symbols leave as zeros");
            zero_outputs(call.out, call.out_items); // host buffers (streaming())
            call.zeroed = call.nsym;
        }
    }
    if (call.zeroed) {
        d_zeroed += call.zeroed;
        d_log.warn("zeroed symbols", [&] {
            return "symbols with NaN, Inf or out-of-range samples (beyond +-1e15) come out "
                   "as zeros (" + std::to_string(d_zeroed) + " so far; zeroed_symbols() "
                   "counts them)";
        });
    }

    // Each tag to the output of the symbol it arrived in: forward, symbol k holds input
    // [time_offset(k), time_offset(k + 1)); inverse, vector k starts at time_offset(k).
    // The call's input starts where this block reads now (what came before it is
    // consumed), its output after what this general_work landed before it.
    for (int c = 0; c < d_config.channels; c++) {
        const std::uint64_t in0 = nitems_read(c), out0 = nitems_written(c) + d_unproduced;
        for (const tag_t& t : d_held_tags[c])
            add_item_tag(c, out0, t.key, t.value, t.srcid);
        d_held_tags[c].clear();
        get_tags_in_range(d_tags, c, in0, in0 + call.in_items);
        for (const tag_t& t : d_tags) {
            const std::size_t rel = t.offset - in0;
            std::uint64_t at;
            if (d_forward) {
                std::size_t lo = 0, hi = call.nsym - 1; // last k with time_offset(k) <= rel
                while (lo < hi) {
                    const std::size_t mid = (lo + hi + 1) / 2;
                    if (d_layout.time_offset(call.phase, mid) <= rel)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                at = out0 + lo;
            } else {
                at = out0 + d_layout.time_offset(call.phase, rel);
            }
            add_item_tag(c, at, t.key, t.value, t.srcid);
        }
    }
    consume_each(int(call.in_items)); // GNU Radio moves the read pointers at once
    d_unproduced += call.out_items;
    d_symbols += call.nsym;
}

void ofdm_fft_impl::work_forward(int noutput_items,
                                std::size_t available,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    const std::uint64_t now = nitems_read(0);
    long tag = next_sync(now, available);
    if (!d_aligned) {
        if (tag != 0) { // nothing to align to yet: drop up to the tag (or everything)
            const std::size_t n = tag < 0 ? available : std::size_t(tag);
            if (n > 0)
                drop(n);
            return;
        }
    }
    if (tag == 0) { // a frame starts here: the prefix pattern starts over
        d_phase = 0;
        d_sync_used = now;
        d_aligned = true;
        tag = next_sync(now + 1, available - 1); // from now, as every offset here
    }
    // A frame that starts where the prefix pattern starts over anyway (frames back to
    // back, each whole prefix periods, as mimo_ofdm_sync writes them) goes into the same
    // batch as the one before it: on the GPU one call for several frames instead of
    // one each. Its tag moves with its first symbol as any other (transform()).
    while (tag > 0 && period_ends_at(std::size_t(tag))) {
        const std::size_t at = std::size_t(tag);
        tag = next_sync(now + at + 1, available - at - 1);
    }
    const std::size_t limit = tag < 0 ? available : std::size_t(tag);
    const std::size_t nsym =
        symbols_fitting(limit, std::min<std::size_t>(noutput_items, d_batch));
    if (nsym == 0) {
        if (tag > 0) { // the next frame starts inside this symbol: drop what came
            drop(limit);
            d_dropped_symbols++;
            d_log.warn("incomplete symbol", [&] {
                return "dropped an incomplete symbol of " + std::to_string(limit) +
                       " samples before sync tag '" + pmt::symbol_to_string(d_sync_key) +
                       "' at item " + std::to_string(now + limit) + " (" +
                       std::to_string(d_dropped_symbols) + " dropped so far)";
            });
        }
        return;
    }
    transform(nsym, input_items, output_items);
}

void ofdm_fft_impl::work_inverse(int noutput_items,
                                std::size_t available,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    const std::uint64_t now = nitems_read(0);
    long tag = next_sync(now, available);
    if (tag == 0) { // a frame starts with this vector: the prefix pattern starts over
        d_phase = 0;
        d_sync_used = now;
        tag = next_sync(now + 1, available - 1); // from now, as every offset here
    }
    const std::size_t limit = tag < 0 ? available : std::size_t(tag);
    const std::size_t nsym =
        symbols_fitting(noutput_items, std::min<std::size_t>(limit, d_batch));
    if (nsym == 0)
        return;
    transform(nsym, input_items, output_items);
}

int ofdm_fft_impl::general_work(int noutput_items,
                                gr_vector_int& ninput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    std::size_t available =
        std::size_t(*std::min_element(ninput_items.begin(), ninput_items.end()));
    d_unproduced = 0;
    // The transform the last call left in flight lands first; this call's own work
    // starts after its items, on both sides. (The room offered now is at least what
    // was offered then: readers only free items, and forecast() asks no more input.)
    if (d_in_flight) {
        fft_call call = std::move(*d_in_flight);
        d_in_flight.reset();
        land(call);
        available -= call.in_items;
        noutput_items -= int(call.out_items);
        const std::size_t in_bytes = call.in_items * input_signature()->sizeof_stream_item(0);
        const std::size_t out_bytes = call.out_items * output_signature()->sizeof_stream_item(0);
        for (auto& in : input_items)
            in = static_cast<const unsigned char*>(in) + in_bytes;
        for (auto& out : output_items)
            out = static_cast<unsigned char*>(out) + out_bytes;
    }
    try {
        if (noutput_items <= 0) // the landed call took the room offered
            return int(d_unproduced);
        if (d_forward)
            work_forward(noutput_items, available, input_items, output_items);
        else
            work_inverse(noutput_items, available, input_items, output_items);
        return int(d_unproduced);
    } catch (...) { // what is at hand is dropped, counted, and the pattern waits to realign
        d_faults.caught("its " + std::to_string(available) + " input items are dropped");
        if (d_in_flight) { // launched before the failure: waited for, dropped with the rest
            fft_call call = std::move(*d_in_flight);
            d_in_flight.reset();
            if (call.submitted) {
                try {
                    d_engine->finish();
                } catch (...) {
                }
            }
        }
        drop(available);
        d_aligned = pmt::is_null(d_sync_key) || !d_forward; // a sync tag realigns
        return int(d_unproduced);
    }
}

} // namespace gpumimo
} // namespace gr
