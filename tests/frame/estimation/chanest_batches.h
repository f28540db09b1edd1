/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batches for chanest_engine's tests, laid out as mimo_chanest sees its inputs: each
 * antenna's OFDM symbols after the FFT, frames (random payloads through a fresh
 * mimo_channel each, a residual carrier offset for the tracker to take out) with a few
 * symbols of noise between some of them; the references composed frame by frame
 * (estimate_channel, phase_tracker, the payload turned back symbol by symbol); and one
 * batch through an engine, its outputs poisoned first, its buffers where a block's lie
 * (pageable, page-locked or on the device).
 */
#ifndef INCLUDED_GPUMIMO_TESTS_CHANEST_BATCHES_H
#define INCLUDED_GPUMIMO_TESTS_CHANEST_BATCHES_H

#include "frame/fused_frames.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>
#include <gnuradio/gpumimo/core/frame/estimate_items.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpumimo_test {

/*! A 16-QAM frame format of `streams` streams and `payload` payload symbols, a pilot
 *  block every `pilot_interval` of them (0: one block). */
inline gr::gpumimo::core::frame_format
chanest_format(const char* preset, int streams, int payload, int pilot_interval = 0)
{
    gr::gpumimo::core::frame_format f;
    f.num = gr::gpumimo::core::numerology_preset(preset);
    f.streams = streams;
    f.mod = gr::gpumimo::core::modulation::qam16;
    f.payload_symbols = payload;
    f.pilot_interval = pilot_interval;
    return f;
}

struct chanest_input {
    std::vector<std::vector<std::complex<float>>> antenna; // [rx][symbol][used carrier]
    std::vector<std::size_t> frame_at;                     // [frame]: first symbol
    std::vector<std::vector<std::complex<float>>> frame;   // [frame][rx][symbol][carrier]

    std::vector<const std::complex<float>*> pointers() const
    {
        std::vector<const std::complex<float>*> p;
        for (const auto& a : antenna)
            p.push_back(a.data());
        return p;
    }
};

/*! `frames` frames at snr_db, each preceded by 0 to 3 symbols of noise when `gaps`;
 *  frame `silent` (if < frames) all zeros; frame `damaged` (if < frames) with one value
 *  on its last antenna NaN, one Inf and one beyond max_sample_magnitude, in random
 *  symbols and carriers. */
inline chanest_input make_chanest_input(std::mt19937_64& rng,
                                        const gr::gpumimo::core::frame_format& f,
                                        int rx,
                                        std::size_t frames,
                                        double snr_db,
                                        bool gaps,
                                        std::size_t silent = std::size_t(-1),
                                        std::size_t damaged = std::size_t(-1),
                                        double phase_noise_var = 0, // per antenna
                                        double doppler = 0)         // cycles per sample
{
    using namespace gr::gpumimo::core;
    const std::size_t U = std::size_t(f.num.used_carriers), S = std::size_t(f.symbols());
    const received_frames rf = make_received_frames(rng, f, rx, frames, snr_db, { 0.7, 0.2, 0.1 }, 0.01 / 64,
                                                     nullptr, doppler, phase_noise_var);
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, rx));
    std::uniform_int_distribution<int> gap(0, gaps ? 3 : 0);
    std::normal_distribution<float> noise(0.0f, 0.3f);
    chanest_input in;
    in.antenna.resize(std::size_t(rx));
    for (std::size_t fr = 0; fr < frames; fr++) {
        const int junk = gap(rng);
        for (auto& a : in.antenna)
            for (std::size_t i = 0; i < std::size_t(junk) * U; i++)
                a.emplace_back(noise(rng), noise(rng));
        in.frame.push_back(demodulate(f, fft, rf, rx, fr));
        if (fr == silent)
            std::fill(in.frame.back().begin(), in.frame.back().end(), std::complex<float>(0));
        if (fr == damaged) {
            std::uniform_int_distribution<std::size_t> at(0, S * U - 1);
            std::complex<float>* last = in.frame.back().data() + std::size_t(rx - 1) * S * U;
            last[at(rng)] = { NAN, 0.0f };
            last[at(rng)] = { 0.0f, INFINITY };
            last[at(rng)] = { 2.0f * max_sample_magnitude, 0.0f };
        }
        in.frame_at.push_back(in.antenna[0].size() / U);
        for (int r = 0; r < rx; r++) {
            const auto* x = in.frame.back().data() + std::size_t(r) * S * U;
            in.antenna[std::size_t(r)].insert(in.antenna[std::size_t(r)].end(), x, x + S * U);
        }
    }
    return in;
}

/*! A frame's payload symbols ([rx][symbol][carrier] of `frame`, the pilot blocks left
 *  out) turned back symbol by symbol by derotation ([payload symbol][antenna]) into
 *  payload ([rx][payload symbol][carrier]). */
inline void turn_back_payload(const gr::gpumimo::core::frame_format& f,
                              const std::vector<std::complex<float>>& frame,
                              const std::vector<std::complex<float>>& derotation,
                              int rx,
                              std::vector<std::complex<float>>& payload)
{
    const std::size_t U = std::size_t(f.num.used_carriers), S = std::size_t(f.symbols());
    const std::size_t P = std::size_t(f.payload_symbols);
    payload.assign(std::size_t(rx) * P * U, {});
    for (int r = 0; r < rx; r++)
        for (std::size_t s = 0; s < P; s++)
            for (std::size_t k = 0; k < U; k++)
                payload[(std::size_t(r) * P + s) * U + k] =
                    derotation[s * std::size_t(rx) + std::size_t(r)] *
                    frame[(std::size_t(r) * S + std::size_t(f.payload_symbol_index(int(s)))) * U + k];
}

/*! Frame `fr` the long way: its estimate, and its payload turned back symbol by symbol
 *  into payload ([rx][payload symbol][carrier]). */
inline gr::gpumimo::core::channel_estimate
reference_chanest(const gr::gpumimo::core::frame_format& f,
                  gr::gpumimo::core::channel_estimator method,
                  int rx,
                  const chanest_input& in,
                  std::size_t fr,
                  std::vector<std::complex<float>>& payload)
{
    using namespace gr::gpumimo::core;
    const std::size_t U = std::size_t(f.num.used_carriers), S = std::size_t(f.symbols());
    const std::size_t first = std::size_t(1 + f.streams), P = std::size_t(f.payload_symbols);
    const std::vector<std::complex<float>>& c = in.frame[fr];
    const channel_estimate e = estimate_channel(f, c.data(), rx, int(S), method);
    std::vector<std::complex<float>> derotation(P * std::size_t(rx)); // [symbol][antenna]
    phase_tracker(f).estimate(e, &c[first * U], S * U, derotation.data());
    turn_back_payload(f, c, derotation, rx, payload);
    return e;
}

/*! Frame `fr` of a format with pilot blocks the long way (core/frame/estimation/time_tracking.h):
 *  every block estimated with a channel_smoother, each payload symbol's estimate
 *  interpolated between the blocks around it (returned, [payload symbol]), the phase
 *  tracker fed symbol by symbol, the payload symbols (the blocks left out) turned back
 *  into payload ([rx][payload symbol][carrier]). */
inline std::vector<gr::gpumimo::core::channel_estimate>
reference_tracked_chanest(const gr::gpumimo::core::frame_format& f,
                          gr::gpumimo::core::channel_estimator method,
                          int rx,
                          const chanest_input& in,
                          std::size_t fr,
                          std::vector<std::complex<float>>& payload)
{
    using namespace gr::gpumimo::core;
    const std::size_t U = std::size_t(f.num.used_carriers), S = std::size_t(f.symbols());
    const std::size_t P = std::size_t(f.payload_symbols);
    const std::vector<std::complex<float>>& c = in.frame[fr];
    channel_smoother smoother(f.num, method);
    std::vector<channel_estimate> blocks;
    estimate_pilot_blocks(f, c.data(), rx, smoother, blocks);
    const std::vector<time_weight> weights = time_weights(f);
    std::vector<channel_estimate> symbols(P);
    phase_tracker tracker(f);
    tracker.begin(rx);
    std::vector<const std::complex<float>*> at(static_cast<std::size_t>(rx));
    for (std::size_t s = 0; s < P; s++) {
        const time_weight& tw = weights[s];
        interpolate_estimate(blocks[std::size_t(tw.before)], blocks[std::size_t(tw.before) + 1], tw.w, symbols[s]);
        for (int r = 0; r < rx; r++)
            at[std::size_t(r)] = &c[(std::size_t(r) * S + std::size_t(f.payload_symbol_index(int(s)))) * U];
        tracker.add_symbol(symbols[s], at.data());
    }
    std::vector<std::complex<float>> derotation(P * std::size_t(rx)); // [symbol][antenna]
    tracker.finish(blocks[0].noise_var, derotation.data());
    turn_back_payload(f, c, derotation, rx, payload);
    return symbols;
}

/*! Where a batch's input and payload lie for an engine call. */
enum class buffers { pageable, page_locked, device };

struct engine_outputs {
    std::vector<std::vector<std::complex<float>>> payload; // [rx][frame][payload symbol][carrier]
    std::vector<gr::gpumimo::core::channel_estimate> estimates;
    std::vector<unsigned char> usable;  // [frame]
    std::vector<unsigned char> records; // [frame][record_stride], where asked for
    std::size_t record_stride = 0;
};

/*! The poison byte of engine_outputs' records, left where nothing was to be written. */
constexpr unsigned char record_poison = 0xA5;

/*! Frame fr's record in `out` holds its estimate as docs/frame.md lays a record out (H
 *  [carrier][rx][tx] as complex floats, then the noise per carrier: noise_eff, or
 *  noise_var where the estimate has none), exactly, and the bytes after it up to the
 *  next record are untouched. */
inline ::testing::AssertionResult record_matches_estimate(const engine_outputs& out,
                                                          const gr::gpumimo::core::estimate_items& items,
                                                          std::size_t fr)
{
    const gr::gpumimo::core::channel_estimate& e = out.estimates[fr];
    const unsigned char* record = out.records.data() + fr * out.record_stride;
    const std::size_t h_values = items.used * items.rx * items.tx;
    if (e.h.size() != h_values)
        return ::testing::AssertionFailure() << "frame " << fr << ": the estimate has " << e.h.size()
                                             << " values of H, the record " << h_values;
    std::vector<std::complex<float>> h(h_values);
    std::memcpy(h.data(), record, h_values * sizeof(h[0]));
    for (std::size_t i = 0; i < h_values; i++)
        if (h[i] != e.h[i])
            return ::testing::AssertionFailure() << "frame " << fr << ": H value " << i << " is " << h[i]
                                                 << ", the estimate's " << e.h[i];
    std::vector<float> noise(items.used);
    std::memcpy(noise.data(), record + h_values * sizeof(h[0]), items.used * sizeof(float));
    for (std::size_t c = 0; c < items.used; c++) {
        const float want = e.noise_eff.empty() ? e.noise_var : e.noise_eff[c];
        if (noise[c] != want)
            return ::testing::AssertionFailure() << "frame " << fr << ": noise on carrier " << c
                                                 << " is " << noise[c] << ", the estimate's " << want;
    }
    for (std::size_t i = h_values * sizeof(h[0]) + items.used * sizeof(float); i < out.record_stride; i++)
        if (record[i] != record_poison)
            return ::testing::AssertionFailure() << "frame " << fr << ": byte " << i
                                                 << " after the record was written";
    return ::testing::AssertionSuccess();
}

/*! Payload symbol s's record of frame fr in `out` (a format with pilot blocks: a record
 *  per symbol) read back into e (N0 noise_var), the padding after it (up to the next
 *  symbol's record, or the next frame's) checked untouched. */
inline ::testing::AssertionResult read_symbol_record(const engine_outputs& out,
                                                     const gr::gpumimo::core::estimate_items& items,
                                                     std::size_t fr,
                                                     std::size_t s,
                                                     float noise_var,
                                                     gr::gpumimo::core::channel_estimate& e)
{
    const unsigned char* record = out.records.data() + fr * out.record_stride + s * items.item_bytes();
    gr::gpumimo::core::read_estimate_record(items, record, noise_var, e);
    const std::size_t end = s + 1 < items.payload_symbols ? items.item_bytes()
                                                          : out.record_stride - s * items.item_bytes();
    for (std::size_t i = items.record_bytes(); i < end; i++)
        if (record[i] != record_poison)
            return ::testing::AssertionFailure() << "frame " << fr << " symbol " << s << ": byte " << i
                                                 << " after the record was written";
    return ::testing::AssertionSuccess();
}

/*! Batch b (valid, its records unset) refused with records closer together than a
 *  record's bytes, and taken with records a record apart. */
inline void expect_record_spacing_checked(gr::gpumimo::core::chanest_engine& engine,
                                          gr::gpumimo::core::chanest_batch b,
                                          const gr::gpumimo::core::frame_format& f,
                                          int rx)
{
    using namespace gr::gpumimo::core;
    const std::size_t bytes = estimate_items_of(f, rx).frame_record_bytes(); // a frame's records
    std::vector<unsigned char> records(b.frames * bytes);
    std::vector<channel_estimate> estimates;
    b.records = records.data();
    b.record_stride = bytes - 4; // records overlapping
    EXPECT_THROW(engine.estimate(b, estimates), std::invalid_argument);
    b.record_stride = bytes;
    EXPECT_NO_THROW(engine.estimate(b, estimates));
}

/*! in's frames as one batch through `engine`, the payload and usable list poisoned
 *  first; the input and payload registered with CUDA for the call (page_locked) or
 *  copied to and from device memory (device: as two GPU blocks' stream buffer). With
 *  `records`, the estimates also as records (16 bytes of padding after each, poisoned),
 *  where the payload lies. */
inline void run_chanest_engine(gr::gpumimo::core::chanest_engine& engine,
                               const chanest_input& in,
                               const gr::gpumimo::core::frame_format& f,
                               int rx,
                               buffers where,
                               engine_outputs& out,
                               bool records = false)
{
    using namespace gr::gpumimo::core;
    using cf = std::complex<float>;
    const std::size_t frames = in.frame_at.size();
    const std::size_t P = std::size_t(f.payload_symbols) * std::size_t(f.num.used_carriers);
    out.payload.assign(std::size_t(rx), std::vector<cf>(frames * P, cf(NAN, NAN)));
    out.usable.assign(frames, 7);
    const estimate_items items = estimate_items_of(f, rx);
    out.record_stride = records ? items.frame_record_bytes() + 16 : 0;
    out.records.assign(frames * out.record_stride, record_poison);
    std::vector<host_registration> locks;
    std::vector<device_bytes> on_device; // [rx] inputs, then [rx] payloads
    std::vector<const cf*> from = in.pointers();
    std::vector<cf*> to;
    for (auto& p : out.payload)
        to.push_back(p.data());
    for (int r = 0; r < rx; r++) {
        const std::vector<cf>& a = in.antenna[std::size_t(r)];
        const std::vector<cf>& p = out.payload[std::size_t(r)];
        if (where == buffers::page_locked) {
            locks.emplace_back(a.data(), a.size() * sizeof(cf));
            locks.emplace_back(p.data(), p.size() * sizeof(cf));
        } else if (where == buffers::device) {
            on_device.emplace_back(a.size() * sizeof(cf), 0);
            copy_bytes(on_device.back().get(), a.data(), a.size() * sizeof(cf));
            from[std::size_t(r)] = reinterpret_cast<const cf*>(on_device.back().get());
        }
    }
    for (int r = 0; where == buffers::device && r < rx; r++) {
        std::vector<cf>& p = out.payload[std::size_t(r)];
        on_device.emplace_back(p.size() * sizeof(cf), 0);
        copy_bytes(on_device.back().get(), p.data(), p.size() * sizeof(cf)); // the poison
        to[std::size_t(r)] = reinterpret_cast<cf*>(on_device.back().get());
    }
    unsigned char* records_at = out.records.data();
    if (records && where == buffers::page_locked)
        locks.emplace_back(out.records.data(), out.records.size());
    else if (records && where == buffers::device) {
        on_device.emplace_back(out.records.size(), 0);
        copy_bytes(on_device.back().get(), out.records.data(), out.records.size());
        records_at = reinterpret_cast<unsigned char*>(on_device.back().get());
    }
    for (const host_registration& l : locks)
        if (!l.pinned())
            throw std::runtime_error("run_chanest_engine: cannot page-lock the buffers");
    chanest_batch b;
    b.in = from.data();
    b.frame_at = in.frame_at.data();
    b.frames = frames;
    b.payload = to.data();
    b.usable = out.usable.data();
    if (records) {
        b.records = records_at;
        b.record_stride = out.record_stride;
    }
    engine.estimate(b, out.estimates);
    if (records && where == buffers::device)
        copy_bytes(out.records.data(), records_at, out.records.size());
    for (int r = 0; where == buffers::device && r < rx; r++)
        copy_bytes(out.payload[std::size_t(r)].data(), to[std::size_t(r)],
                   out.payload[std::size_t(r)].size() * sizeof(cf));
}

} // namespace gpumimo_test

#endif
