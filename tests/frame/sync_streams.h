/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Received streams for the synchroniser engines' tests: random frames at random gaps
 * through one mimo_channel (taps, carrier offset, noise everywhere), and the call
 * pattern of a GNU Radio block over them: input arriving in random amounts, each call
 * offered what is unconsumed, up to the engine's max_input.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_SYNC_STREAMS_H
#define INCLUDED_GPUMIMO_TESTS_SYNC_STREAMS_H

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <algorithm>
#include <complex>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpumimo_test {

struct sync_stream {
    gr::gpumimo::core::frame_format f;
    int rx = 0;
    std::size_t len = 0;
    std::vector<std::complex<float>> samples; // [antenna][len]
    std::vector<std::size_t> starts;          // where each frame was put
    std::vector<std::uint8_t> bits;           // [frame][payload bits]
};

inline sync_stream make_sync_stream(std::mt19937_64& rng,
                                    const gr::gpumimo::core::frame_format& f,
                                    int rx,
                                    int frames,
                                    double snr_db,
                                    double cfo_bins,
                                    double dc_dbc = -INFINITY, // a DC offset on every antenna
                                    double iq_gain_db = 0,     // the receiver's IQ imbalance
                                    double iq_phase_deg = 0)
{
    using namespace gr::gpumimo::core;
    sync_stream s;
    s.f = f;
    s.rx = rx;
    const std::size_t n = f.samples();
    std::uniform_int_distribution<std::size_t> gap(0, n);
    std::uniform_int_distribution<int> coin(0, 2);
    s.len = 300;
    for (int k = 0; k < frames; k++) {
        s.starts.push_back(s.len);
        s.len += n + (coin(rng) ? 0 : gap(rng)); // mostly back to back, as a stream
    }
    s.len += search_window(f);
    std::vector<std::complex<float>> tx(std::size_t(f.streams) * s.len);
    std::uniform_int_distribution<int> bit(0, 1);
    std::vector<std::uint8_t> bits(f.payload_bits());
    for (std::size_t s0 : s.starts) {
        for (auto& b : bits)
            b = std::uint8_t(bit(rng));
        s.bits.insert(s.bits.end(), bits.begin(), bits.end());
        const std::vector<std::complex<float>> one = frame_samples(f, bits.data());
        for (int k = 0; k < f.streams; k++)
            std::copy(&one[k * n], &one[k * n] + n, &tx[k * s.len + s0]);
    }
    channel_params cp;
    cp.tx = f.streams;
    cp.rx = rx;
    cp.tap_powers = { 0.7, 0.2, 0.1 };
    cp.snr_db = snr_db;
    cp.cfo = cfo_bins / f.num.fft_len;
    cp.impairments.dc_dbc = dc_dbc;
    cp.impairments.iq_gain_db = iq_gain_db;
    cp.impairments.iq_phase_deg = iq_phase_deg;
    cp.seed = rng();
    mimo_channel ch(cp);
    s.samples = ch.apply(tx.data(), s.len);
    return s;
}

/*! What one engine found over a whole stream, call by call. */
struct sync_run {
    std::vector<std::size_t> consumed;            // per call
    std::vector<std::uint64_t> starts;            // stream positions of the frames
    std::vector<gr::gpumimo::core::synced_frame> frames;
    std::vector<std::complex<float>> corrected;   // [frame][antenna][samples]
};

/*! Where run_sync_engine's buffers lie: pageable, page-locked as a block's registered
 *  stream buffers (the GPU engine copies by DMA in place), or the output in device
 *  memory (a device-resident stream buffer to a GPU ofdm_fft). */
enum class sync_buffers { pageable, page_locked, device_output };

/*! Feeds the stream to the engine as a block would: arrivals of random size (from
 *  `arrivals`' seed, so that two engines see the same calls), each call offered the
 *  unconsumed samples up to max_input and at most max_frames frames. Output slots are
 *  poisoned with NaN before every call. */
inline sync_run run_sync_engine(gr::gpumimo::core::frame_sync_engine& engine,
                                const sync_stream& s,
                                std::size_t max_input,
                                std::size_t max_frames,
                                std::uint64_t arrivals,
                                sync_buffers where = sync_buffers::pageable)
{
    using namespace gr::gpumimo::core;
    sync_run run;
    std::mt19937_64 rng(arrivals);
    const std::size_t n_frame = s.f.samples();
    std::uniform_int_distribution<std::size_t> arrive(1, 3 * n_frame);
    std::uniform_int_distribution<std::size_t> frames_room(1, max_frames);
    std::vector<std::complex<float>> out(std::size_t(s.rx) * max_frames * n_frame);
    std::vector<synced_frame> found(max_frames);
    // Page-locked as a block's registered stream buffers are: the GPU engine then copies
    // by DMA in place, without its staging buffers.
    std::vector<host_registration> locks;
    if (where == sync_buffers::page_locked) {
        locks.emplace_back(s.samples.data(), s.samples.size() * sizeof(std::complex<float>));
        locks.emplace_back(out.data(), out.size() * sizeof(std::complex<float>));
        for (const host_registration& l : locks)
            if (!l.pinned())
                throw std::runtime_error("run_sync_engine: could not page-lock the test's buffers");
    }
    device_bytes device_out;
    std::size_t available = 0, at = 0;
    while (at < s.len) {
        available = std::min(s.len, available + arrive(rng));
        const std::size_t n = std::min(available - at, max_input);
        std::vector<const std::complex<float>*> in;
        std::vector<std::complex<float>*> to;
        std::fill(out.begin(), out.end(), std::complex<float>(NAN, NAN));
        if (where == sync_buffers::device_output && device_out.size() == 0)
            device_out = device_bytes(out.size() * sizeof(std::complex<float>), 0);
        if (where == sync_buffers::device_output) // poisoned too
            copy_bytes(device_out.get(), out.data(), out.size() * sizeof(std::complex<float>));
        auto* base = where == sync_buffers::device_output
                         ? reinterpret_cast<std::complex<float>*>(device_out.get())
                         : out.data();
        for (int a = 0; a < s.rx; a++) {
            in.push_back(&s.samples[a * s.len + at]);
            to.push_back(base + std::size_t(a) * max_frames * n_frame);
        }
        const std::size_t room = frames_room(rng);
        const sync_call_result r =
            engine.search(in.data(), at, n, room, automatic_threshold, to.data(), found.data());
        if (where == sync_buffers::device_output) { // the outputs back where they are read
            copy_bytes(out.data(), device_out.get(), out.size() * sizeof(std::complex<float>));
            for (int a = 0; a < s.rx; a++)
                to[std::size_t(a)] = &out[std::size_t(a) * max_frames * n_frame];
        }
        run.consumed.push_back(r.consumed);
        for (std::size_t k = 0; k < r.frames; k++) {
            run.starts.push_back(at + found[k].start);
            run.frames.push_back(found[k]);
            for (int a = 0; a < s.rx; a++) {
                const std::complex<float>* f = to[a] + k * n_frame;
                run.corrected.insert(run.corrected.end(), f, f + n_frame);
            }
        }
        at += r.consumed;
        if (available == s.len && r.consumed == 0)
            break; // the end: less than a frame and a margin left
    }
    return run;
}

// Structured input that is not a frame (issue 48 item 13): what a radio delivers before
// calibration or beside an interferer, 40 frame lengths on 4 antennas with noise 30 dB
// below: a DC offset, a CW tone (between carriers and on one), a tone and DC together,
// and a random half symbol repeated (it repeats as the preamble does: only its content
// differs). The synchroniser must find no frame in any (each once gave one every frame
// length but DC, which the centred metric does not see).
const char* const structured_kinds[] = { "dc", "tone", "carrier tone", "tone+dc", "repeated half" };
inline sync_stream make_structured_stream(std::mt19937_64& rng,
                                          const gr::gpumimo::core::frame_format& f,
                                          const std::string& kind)
{
    sync_stream s;
    s.f = f;
    s.rx = 4;
    s.len = 40 * f.samples();
    s.samples.resize(std::size_t(s.rx) * s.len);
    const std::size_t N = std::size_t(f.num.fft_len);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_real_distribution<double> phase(0, 2 * M_PI);
    const float noise = std::sqrt(0.5f * 1e-3f);
    std::vector<std::complex<float>> half(N / 2);
    for (auto& v : half)
        v = std::complex<float>(g(rng), g(rng)) * std::sqrt(0.5f);
    for (int a = 0; a < s.rx; a++) {
        const double p0 = phase(rng);
        for (std::size_t t = 0; t < s.len; t++) {
            std::complex<float> v(g(rng) * noise, g(rng) * noise);
            if (kind == "dc" || kind == "tone+dc")
                v += std::polar(1.0f, float(p0));
            if (kind == "tone" || kind == "tone+dc")
                v += std::polar(1.0f, float(p0 + 2 * M_PI * 3.37 * double(t) / double(N)));
            if (kind == "carrier tone")
                v += std::polar(1.0f, float(p0 + 2 * M_PI * 6.0 * double(t) / double(N)));
            if (kind == "repeated half")
                v += half[t % (N / 2)] * std::polar(1.0f, float(p0));
            s.samples[std::size_t(a) * s.len + t] = v;
        }
    }
    return s;
}


} // namespace gpumimo_test

#endif
