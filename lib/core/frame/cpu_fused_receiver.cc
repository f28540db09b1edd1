/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver's configuration checks and its CPU path: the separate stages (OFDM
 * FFT, estimate_channel with its smoother, the phase tracker, cpu_detector) one frame at
 * a time.
 */
#include <gnuradio/gpumimo/core/ofdm/fftw_ofdm_fft.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

void fused_receiver_config::validate() const
{
    frame.validate();
    if (rx < frame.streams || rx > 16)
        throw std::invalid_argument("fused receiver: rx = " + std::to_string(rx) +
                                    " must be streams (" + std::to_string(frame.streams) +
                                    ") .. 16");
    check_detector(algo, constellation(detected_modulation(frame.mod)), frame.streams, rx, params);
}

struct cpu_fused_receiver::impl {
    fused_receiver_config config;
    cpu_detector detector;
    channel_smoother smoother;
    phase_tracker tracker;
    fused_layout L;
    std::vector<int> data; // the data carriers, indices into the used ones
    std::unique_ptr<fftw_ofdm_fft> fftw; // when the build has FFTW
    std::unique_ptr<cpu_ofdm_fft> reference;
    std::vector<std::complex<float>> carriers, y, h, derotation;
    std::vector<float> noise;
    // Time tracking: the pilot blocks' estimates, each payload symbol's weights, one
    // symbol's interpolated estimate and its data carriers' H and noise.
    std::vector<channel_estimate> blocks;
    std::vector<time_weight> weights;
    channel_estimate at;
    std::vector<std::complex<float>> symbol_h;
    std::vector<float> symbol_noise;
    std::vector<const std::complex<float>*> symbol_in;
    std::vector<const void*> fft_in;
    std::vector<void*> fft_out;
    std::vector<float> llr;
    // With a code: the payload's layout, the CPU decoder and one frame's LLRs in payload
    // and codeword order, with the decoder's outputs.
    std::unique_ptr<coded_payload> coded;
    std::unique_ptr<cpu_ldpc_decoder> decoder;
    std::vector<float> frame_llr, codeword_llr;
    std::vector<std::uint8_t> codeword_bits, satisfied;
    std::vector<int> iterations;
    std::vector<const std::complex<float>*> frame_in; // one frame's antennas

    explicit impl(const fused_receiver_config& c)
        : config((c.validate(), c)),
          detector(c.algo, detected_modulation(c.frame.mod), c.frame.streams, c.rx, c.params),
          smoother(c.frame.num, c.estimator),
          tracker(c.frame),
          L(c.frame),
          data(data_carriers(c.frame.num)),
          weights(time_weights(c.frame))
    {
        const ofdm_fft_config fft = c.frame.num.fft_config(fft_direction::forward, c.rx);
        if (fftw_available())
            fftw = std::make_unique<fftw_ofdm_fft>(fft);
        else
            reference = std::make_unique<cpu_ofdm_fft>(fft);
        if (!c.code.empty()) {
            coded = std::make_unique<coded_payload>(c.frame, c.code);
            decoder = std::make_unique<cpu_ldpc_decoder>(coded->code(), c.decoder);
            frame_llr.resize(c.frame.payload_bits());
            const std::size_t C = std::size_t(coded->codewords());
            codeword_llr.resize(C * std::size_t(coded->n()));
            codeword_bits.resize(codeword_llr.size());
            satisfied.resize(C);
            iterations.resize(C);
            frame_in.resize(std::size_t(c.rx));
        }
    }

    // Frame f's carriers, [antenna][symbol][used carrier]; false if a sample was not finite.
    bool demodulate(const std::complex<float>* const* in, std::size_t f)
    {
        const frame_format& fr = config.frame;
        const std::size_t n = fr.samples(), per_antenna = fr.symbols() * std::size_t(fr.num.used_carriers);
        fft_in.resize(config.rx);
        fft_out.resize(config.rx);
        carriers.resize(per_antenna * config.rx);
        for (int a = 0; a < config.rx; a++) {
            const std::complex<float>* x = in[a] + f * n;
            if (!all_usable(x, n))
                return false;
            fft_in[a] = x;
            fft_out[a] = carriers.data() + a * per_antenna;
        }
        ofdm_fft_io io;
        io.in_channels = fft_in.data();
        io.out_channels = fft_out.data();
        io.nsym = std::size_t(fr.symbols());
        if (fftw)
            fftw->process(io);
        else
            reference->process(io);
        return true;
    }

    // The frame's estimate: its pilot blocks' (one without time tracking).
    const std::vector<channel_estimate>& estimate()
    {
        estimate_pilot_blocks(config.frame, carriers.data(), config.rx, smoother, blocks);
        return blocks;
    }

    // False if an estimate is not usable (not finite, rank deficient, N0 not > 0).
    bool detect(const std::vector<channel_estimate>& e, float* out)
    {
        const frame_format& fr = config.frame;
        const std::size_t per_antenna = std::size_t(L.symbols) * L.carriers;
        const std::size_t m = std::size_t(config.rx) * fr.streams;
        const bool tracked = fr.pilot_blocks() > 1;
        derotation.resize(std::size_t(L.payload) * config.rx); // [symbol][antenna]
        if (!tracked) { // one H per data carrier for every symbol: the detector's group
            tracker.estimate(e[0], carriers.data() + std::size_t(L.first_payload) * L.carriers,
                             per_antenna, derotation.data());
            data_carrier_estimate(data, e[0], h, noise);
        } else { // each symbol's own H, interpolated between the blocks around it
            h.resize(L.payload_vectors() * m);
            noise.resize(L.payload_vectors());
            symbol_in.resize(std::size_t(config.rx));
            tracker.begin(config.rx);
            for (int s = 0; s < L.payload; s++) {
                const time_weight& tw = weights[std::size_t(s)];
                interpolate_estimate(e[std::size_t(tw.before)], e[std::size_t(tw.before) + 1], tw.w, at);
                for (int r = 0; r < config.rx; r++)
                    symbol_in[std::size_t(r)] = carriers.data() + r * per_antenna +
                                                std::size_t(fr.payload_symbol_index(s)) * L.carriers;
                tracker.add_symbol(at, symbol_in.data());
                data_carrier_estimate(data, at, symbol_h, symbol_noise);
                for (int d = 0; d < L.data; d++) {
                    const std::size_t v = L.detector_vector(d, s);
                    std::copy_n(symbol_h.data() + std::size_t(d) * m, m, h.data() + v * m);
                    noise[v] = symbol_noise[std::size_t(d)];
                }
            }
            tracker.finish(e[0].noise_var, derotation.data());
        }
        y.resize(L.payload_vectors() * config.rx);
        for (int r = 0; r < config.rx; r++)
            for (int s = 0; s < L.payload; s++)
                for (int d = 0; d < L.data; d++)
                    y[L.detector_vector(d, s) * config.rx + r] =
                        derotation[std::size_t(s) * config.rx + r] * payload_turn_back(fr.mod, std::size_t(d)) *
                        carriers[r * per_antenna + std::size_t(fr.payload_symbol_index(s)) * L.carriers +
                                 data[std::size_t(d)]];
        mimo_batch b;
        b.y = y.data();
        b.h = h.data();
        b.noise_var = noise.data(); // one per matrix
        b.scalar_noise = false;
        b.batch = L.payload_vectors();
        b.nt = fr.streams;
        b.nr = config.rx;
        b.group = tracked ? 1 : std::size_t(L.payload);
        llr.resize(L.payload_vectors() * L.bits_per_vector);
        try { // the detector checks H, N0 and y before it writes anything
            detector.detect(b, llr.data());
        } catch (const std::invalid_argument&) {
            return false;
        }
        for (int s = 0; s < L.payload; s++)
            for (int c = 0; c < L.data; c++)
                std::copy_n(llr.data() + L.detector_vector(c, s) * L.bits_per_vector,
                            L.bits_per_vector,
                            out + L.payload_vector(c, s) * L.bits_per_vector);
        return true;
    }

    // frame_llr's codewords decoded, their information bits into info.
    payload_decode_report decode(std::uint8_t* info)
    {
        coded->deinterleave(frame_llr.data(), codeword_llr.data());
        ldpc_outputs out;
        out.bits = codeword_bits.data();
        out.satisfied = satisfied.data();
        out.iterations = iterations.data();
        decoder->decode(codeword_llr.data(), std::size_t(coded->codewords()), out);
        return finish_payload_decode(*coded, codeword_llr.data(), codeword_bits.data(),
                                     satisfied.data(), iterations.data(), info);
    }
};

cpu_fused_receiver::cpu_fused_receiver(const fused_receiver_config& config)
    : d_impl(std::make_unique<impl>(config))
{
}
cpu_fused_receiver::~cpu_fused_receiver() = default;
const fused_receiver_config& cpu_fused_receiver::config() const { return d_impl->config; }
std::size_t cpu_fused_receiver::bits_per_frame() const
{
    return d_impl->config.frame.payload_bits();
}

fused_receiver_report cpu_fused_receiver::process(const std::complex<float>* const* in,
                                                  std::size_t frames,
                                                  float* llr,
                                                  float* noise_var)
{
    fused_receiver_report report;
    const std::size_t bits = bits_per_frame();
    for (std::size_t f = 0; f < frames; f++) {
        float* out = llr + f * bits;
        float noise = 0;
        bool usable = d_impl->demodulate(in, f);
        if (!usable) {
            report.damaged_frames++;
        } else {
            const std::vector<channel_estimate>& e = d_impl->estimate();
            noise = e[0].noise_var;
            usable = d_impl->detect(e, out);
            report.unusable_estimates += !usable;
        }
        if (!usable)
            std::fill(out, out + bits, 0.0f);
        if (noise_var)
            noise_var[f] = noise;
    }
    return report;
}

std::size_t cpu_fused_receiver::info_bits_per_frame() const
{
    return d_impl->coded ? d_impl->coded->info_bits() : 0;
}

fused_receiver_report cpu_fused_receiver::process_decoded(const std::complex<float>* const* in,
                                                          std::size_t frames,
                                                          std::uint8_t* info,
                                                          fused_decode_report* decoded,
                                                          float* noise_var)
{
    if (!d_impl->decoder)
        throw std::logic_error("cpu_fused_receiver::process_decoded: the configuration "
                               "names no code");
    fused_receiver_report report;
    fused_decode_report sum;
    const std::size_t K = info_bits_per_frame();
    for (std::size_t f = 0; f < frames; f++) {
        auto& one = d_impl->frame_in;
        for (std::size_t a = 0; a < one.size(); a++)
            one[a] = in[a] + f * d_impl->config.frame.samples();
        const fused_receiver_report r =
            process(one.data(), 1, d_impl->frame_llr.data(), noise_var ? noise_var + f : nullptr);
        report.damaged_frames += r.damaged_frames;
        report.unusable_estimates += r.unusable_estimates;
        const payload_decode_report d = d_impl->decode(info + f * K);
        sum.codewords += d.codewords;
        sum.satisfied += d.satisfied;
        sum.iterations += d.iterations;
        sum.raw_errors += d.raw_errors;
        sum.raw_bits += d.raw_bits;
    }
    if (decoded)
        *decoded = sum;
    return report;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
