/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_rx_quality: what the receiver loses against perfect channel knowledge.
 *
 * Per SNR, the same frames (frame_samples, a fresh channel draw per frame from
 * core::mimo_channel: tapped delay line, carrier and timing offsets, noise) go through
 *  - the chain: find_frame, frame_corrector, then the fused receiver (OFDM FFT, channel
 *    estimation with each estimator asked for, the detector), and
 *  - the genie: the frame cut at its true start (less the synchroniser's quarter
 *    prefix), the true carrier offset removed, the OFDM FFT, and the same detector given
 *    the channel simulator's true response on every carrier and the true noise.
 * It prints frames found, uncoded BER per estimator and for the genie, and the
 * implementation loss in dB at BER 1e-2 (the SNRs where the curves cross it, log-linear
 * between points), at decoded FER 1e-1 with --code, and each BER at the highest SNR (the
 * floor); --csv writes the curves. The channel: core::mimo_channel's models and
 * impairments (docs/channel.md). Core only: no GNU Radio.
 */
#include "common/cli_numbers.h"

#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver_engine.h>
#include <gnuradio/gpumimo/core/frame/payload_decoder.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::gpumimo::core;
namespace cli = gpumimo_cli;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

struct options {
    std::string preset = "small", modulation = "16qam", backend = "auto", csv;
    int streams = 2, rx = 4, payload = 10, frames = 200, pilot_interval = 0;
    std::vector<std::string> detectors{ "mmse" };
    std::vector<std::string> estimators{ "lmmse", "dft", "ls" };
    std::vector<double> snrs;
    std::vector<double> taps{ 0.7, 0.2, 0.1 };
    double cfo_spacings = 0.15;
    double doppler = 0; // cycles per sample
    double doppler_hz = -1; // --doppler-hz: converted with the numerology's sample rate
    // The propagation model and the radio (core::channel_params): --model, --delay-spread,
    // --path-delays (with --taps as their powers), --k-factor, --correlation, and the
    // impairments.
    std::string model = "taps", correlation = "none";
    double delay_spread = 0, k_factor_db = NAN;
    std::vector<double> path_delays;
    radio_impairments impairments;
    std::string code;   // --code: the payload LDPC-coded, decoded frames counted
    std::uint64_t seed = 0;
    bool seed_given = false;
    double noise_samples = 0; // --false-alarms: noise-only samples to search
    double threshold = automatic_threshold; // --threshold (0: sync_threshold's)
};

void usage()
{
    std::cout <<
        "usage: gpumimo_rx_quality [options]\n"
        "  The receiver chain (synchronisation, channel estimation, detection) against the\n"
        "  same frames detected with perfect channel knowledge: uncoded BER per SNR, frames\n"
        "  found, implementation loss at BER 1e-2, the BER at the highest SNR.\n"
        "  --preset small|fft512|lte20   numerology (small)\n"
        "  --streams N --rx N            streams and antennas (2, 4)\n"
        "  --modulation M                bpsk|pi/2-bpsk|qpsk|16qam|...|1024qam (16qam)\n"
        "  --payload N                   payload symbols per frame (10)\n"
        "  --pilot-interval N            a pilot block every N payload symbols and one after\n"
        "                                the last, the channel interpolated in time between\n"
        "                                them (frame format 4; 0: one block, no tracking) (0)\n"
        "  --frames N                    frames per SNR (200)\n"
        "  --snr a,b,c | --snr lo:step:hi SNRs per antenna in dB (0:2:30)\n"
        "  --detectors a,b               detectors (mmse)\n"
        "  --estimators a,b              channel estimators (lmmse,dft,ls)\n"
        "  --model M                     taps (sample-spaced --taps), paths (--path-delays,\n"
        "                                --taps their powers) or a TR 38.901 TDL model:\n"
        "                                tdl-a, tdl-b, tdl-c, tdl-d, tdl-e (taps)\n"
        "  --delay-spread S              TDL: RMS delay spread in seconds (e.g. 300e-9)\n"
        "  --path-delays d0,d1,...       paths: delays in samples, any real numbers\n"
        "  --k-factor DB                 tdl-d/tdl-e: the LOS K-factor (the table's)\n"
        "  --correlation C               antenna correlation (TS 36.101 Annex B): none,\n"
        "                                low, medium, medium-a, high (none); path models\n"
        "  --taps p0,p1,...              power delay profile, sample spaced (0.7,0.2,0.1)\n"
        "  --cfo X                       carrier offset in carrier spacings (0.15)\n"
        "  --code NAME                   LDPC-code the payload (wimax_<n>, nr_bg<g>_z<Z>[_rows<r>] or an alist path)\n"
        "                                and count decoded frame errors (FER) beside the\n"
        "                                uncoded BER; the loss at FER 1e-1 too\n"
        "  --doppler X                   maximum Doppler shift, cycles per sample (0: the\n"
        "                                taps fixed per frame); the genie then knows the\n"
        "                                taps at each payload symbol's middle\n"
        "  --doppler-hz F                maximum Doppler shift in Hz (at the numerology's rate)\n"
        "  --sco-ppm X                   transmitter-receiver sample clock offset, ppm; path models\n"
        "  --phase-noise V               Wiener phase noise, rad^2 a sample (2 pi linewidth / rate)\n"
        "  --iq-imbalance G,P            receive IQ imbalance: gain dB, phase degrees\n"
        "  --dc DBC                      DC offset per antenna, dB against the signal\n"
        "  --backend auto|cpu|cuda       where the receiver runs (auto)\n"
        "  --seed N                      repeat a run (default: fresh, printed)\n"
        "  --csv FILE                    the curves as CSV\n"
        "  --threshold X                 the synchroniser's threshold on the preamble\n"
        "                                metric, in (0, 1]; 0 (the default, as\n"
        "                                mimo_ofdm_sync's): automatic (sync_threshold)\n"
        "  --false-alarms N              also search N samples per antenna of noise alone\n"
        "                                (the synchroniser's search) and count frames found\n";
}

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage();
            std::exit(0);
        } else if (a == "--preset") o.preset = value();
        else if (a == "--streams") o.streams = int(cli::whole(a, value(), 1, 8));
        else if (a == "--rx") o.rx = int(cli::whole(a, value(), 1, 16));
        else if (a == "--modulation") o.modulation = value();
        else if (a == "--payload") o.payload = int(cli::whole(a, value(), 1, 100000));
        else if (a == "--pilot-interval") o.pilot_interval = int(cli::whole(a, value(), 0, 100000));
        else if (a == "--frames") o.frames = int(cli::whole(a, value(), 1, 10000000));
        else if (a == "--snr") o.snrs = cli::numbers(a, value(), -100, 200);
        else if (a == "--detectors") o.detectors = cli::names(a, value());
        else if (a == "--estimators") o.estimators = cli::names(a, value());
        else if (a == "--taps") o.taps = cli::numbers(a, value(), 0, 1e6);
        else if (a == "--cfo") o.cfo_spacings = cli::number(a, value(), -1e3, 1e3);
        else if (a == "--doppler") o.doppler = cli::number(a, value(), 0, 0.5);
        else if (a == "--doppler-hz") o.doppler_hz = cli::number(a, value(), 0, 1e9);
        else if (a == "--model") o.model = value();
        else if (a == "--delay-spread") o.delay_spread = cli::number(a, value(), 0, 1e-3);
        else if (a == "--path-delays") o.path_delays = cli::numbers(a, value(), 0, 1e6);
        else if (a == "--k-factor") o.k_factor_db = cli::number(a, value(), -100, 100);
        else if (a == "--correlation") o.correlation = value();
        else if (a == "--sco-ppm") o.impairments.sco_ppm = cli::number(a, value(), -1e5, 1e5);
        else if (a == "--phase-noise") o.impairments.phase_noise_var = cli::number(a, value(), 0, 10);
        else if (a == "--dc") o.impairments.dc_dbc = cli::number(a, value(), -300, 100);
        else if (a == "--iq-imbalance") {
            const std::vector<double> v = cli::numbers(a, value(), -100, 100);
            if (v.size() != 2)
                throw std::invalid_argument("--iq-imbalance takes gain_db,phase_deg");
            o.impairments.iq_gain_db = v[0];
            o.impairments.iq_phase_deg = v[1];
        }
        else if (a == "--code") o.code = value();
        else if (a == "--backend") o.backend = value();
        else if (a == "--csv") o.csv = value();
        else if (a == "--false-alarms") o.noise_samples = cli::number(a, value(), 0, 1e10);
        else if (a == "--threshold") o.threshold = cli::number(a, value(), 0, 1);
        else if (a == "--seed") {
            o.seed = cli::unsigned_whole(a, value(), UINT64_MAX);
            o.seed_given = true;
        } else
            throw std::invalid_argument("unknown option " + a + " (--help lists them)");
    }
    if (o.snrs.empty())
        o.snrs = cli::numbers("--snr", "0:2:30", -100, 200);
    if (o.frames < 1)
        throw std::invalid_argument("--frames must be >= 1");
    if (!(o.threshold >= 0 && o.threshold <= 1))
        throw std::invalid_argument("--threshold must be in [0, 1] (0: automatic)");
    for (const std::string& e : o.estimators)
        parse_channel_estimator(e); // named errors before anything runs
    if (!o.seed_given)
        o.seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
    return o;
}

// The channel in words, for the first line of the output.
std::string describe(const channel_params& cp, double sample_rate)
{
    std::ostringstream s;
    s << "channel " << cp.model;
    if (cp.model == "taps" || cp.model == "paths") {
        s << (cp.model == "taps" ? " powers" : " delays");
        for (double t : cp.model == "taps" ? cp.tap_powers : cp.path_delays)
            s << " " << t;
        if (cp.model == "paths") {
            s << " powers";
            for (double t : cp.path_powers)
                s << " " << t;
        }
    } else {
        s << " " << cp.delay_spread * 1e9 << " ns";
        if (std::isfinite(cp.k_factor_db))
            s << " K " << cp.k_factor_db << " dB";
    }
    s << ", Doppler " << cp.doppler * sample_rate << " Hz";
    if (cp.rx_correlation > 0 || cp.tx_correlation > 0)
        s << ", correlation alpha " << cp.rx_correlation << " beta " << cp.tx_correlation;
    const radio_impairments& m = cp.impairments;
    if (m.sco_ppm != 0)
        s << ", clock offset " << m.sco_ppm << " ppm";
    if (m.phase_noise_var > 0)
        s << ", phase noise " << m.phase_noise_var << " rad^2/sample";
    if (m.iq_gain_db != 0 || m.iq_phase_deg != 0)
        s << ", IQ imbalance " << m.iq_gain_db << " dB " << m.iq_phase_deg << " deg";
    if (std::isfinite(m.dc_dbc))
        s << ", DC " << m.dc_dbc << " dBc";
    return s.str();
}

// One frame through the channel: the transmitted bits, the received samples
// (antenna-major, n each) and what the genie needs.
struct received_frame {
    std::vector<std::uint8_t> bits; // the payload bits (coded: the interleaved codewords)
    std::vector<std::uint8_t> info; // coded: the information bits
    std::vector<cf> rx;
    std::size_t n = 0;
    std::vector<cf> taps; // [payload symbol][rx][tx][tap]: at each one's middle
    int delay = 0;   // the channel's noise-only lead (its signal time's origin)
    int latency = 0; // the channel's path latency: tap l is delay l - latency
    // Where the frame's first sample arrives.
    std::size_t start() const { return std::size_t(delay + latency); }
    double noise_var = 0;
};

// The channel the options describe (its SNR, delay and seed set per frame).
channel_params channel_of(const frame_format& f, const options& o)
{
    channel_params cp;
    cp.tx = f.streams;
    cp.rx = o.rx;
    cp.model = o.model;
    if (o.model == "paths") {
        cp.path_delays = o.path_delays;
        cp.path_powers = o.taps;
    } else {
        cp.tap_powers = o.taps;
    }
    cp.delay_spread = o.delay_spread;
    cp.sample_rate = f.num.sample_rate;
    cp.k_factor_db = o.k_factor_db;
    const correlation_level c = parse_correlation_level(o.correlation);
    cp.rx_correlation = c.alpha;
    cp.tx_correlation = c.beta;
    cp.impairments = o.impairments;
    cp.cfo = o.cfo_spacings / f.num.fft_len;
    cp.doppler = o.doppler_hz >= 0 ? o.doppler_hz / f.num.sample_rate : o.doppler;
    return cp;
}

received_frame make_frame(const frame_format& f,
                          const options& o,
                          const coded_payload* coded,
                          double snr,
                          std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    received_frame out;
    out.bits.resize(f.payload_bits());
    if (coded) {
        out.info.resize(coded->info_bits());
        for (auto& b : out.info)
            b = std::uint8_t(rng() & 1);
        coded->encode(out.info.data(), out.bits.data());
    } else {
        for (auto& b : out.bits)
            b = std::uint8_t(rng() & 1);
    }
    const std::vector<cf> tx = frame_samples(f, out.bits.data());
    const int cp0 = f.num.cp_lengths[0];
    channel_params cp = channel_of(f, o);
    cp.snr_db = snr;
    cp.delay = cp0 * 2 + int(rng() % std::uint64_t(f.num.fft_len)); // some noise first
    cp.seed = rng();
    mimo_channel ch(cp);
    const std::size_t len = f.samples(), margin = std::size_t(2 * (f.num.fft_len + cp0));
    out.n = std::size_t(cp.delay) + len + margin;
    std::vector<cf> padded(std::size_t(f.streams) * out.n, cf(0, 0));
    std::vector<const cf*> in(std::size_t(f.streams));
    for (int k = 0; k < f.streams; k++) {
        std::copy(&tx[k * len], &tx[k * len] + len, &padded[k * out.n]);
        in[k] = &padded[k * out.n];
    }
    out.rx.assign(std::size_t(o.rx) * out.n, cf(0, 0));
    std::vector<cf*> to(std::size_t(o.rx));
    for (int r = 0; r < o.rx; r++)
        to[r] = &out.rx[r * out.n];
    // The payload's mean power per stream, used / fft_len (unit-energy carriers).
    out.noise_var = ch.stream_noise_var(double(f.num.used_carriers) / f.num.fft_len);
    // Through the channel in pieces, the taps noted at the middle of each payload
    // symbol's FFT window (all the same without a Doppler shift).
    std::size_t at = 0, offset = 0; // samples processed; a symbol's offset in the frame
    for (int s = 0; s < f.symbols(); s++) {
        const int cp_s = f.num.cp_lengths[std::size_t(s) % f.num.cp_lengths.size()];
        const std::size_t middle = std::size_t(cp.delay) + offset + std::size_t(cp_s + f.num.fft_len / 2);
        offset += std::size_t(cp_s + f.num.fft_len);
        if (!f.is_payload_symbol(s))
            continue;
        std::vector<const cf*> from(in);
        std::vector<cf*> into(to);
        for (auto& p : from)
            p += at;
        for (auto& p : into)
            p += at;
        ch.process(from.data(), into.data(), middle - at, out.noise_var);
        at = middle;
        const std::vector<cf> h = ch.taps();
        out.taps.insert(out.taps.end(), h.begin(), h.end());
    }
    for (auto& p : in)
        p += at;
    for (auto& p : to)
        p += at;
    ch.process(in.data(), to.data(), out.n - at, out.noise_var);
    out.delay = cp.delay;
    out.latency = ch.path_latency();
    return out;
}

struct counts {
    std::uint64_t errors = 0, bits = 0, frames = 0, frame_errors = 0, coded_frame_errors = 0;
    double ber() const { return bits ? double(errors) / double(bits) : 0; }
    double coded_fer() const { return frames ? double(coded_frame_errors) / double(frames) : 0; }
};

// A frame's LLRs, uncoded and (with a decoder) decoded, into c.
void count(counts& c,
           const float* llr,
           const received_frame& fr,
           payload_decoder* decoder,
           std::vector<std::uint8_t>& info)
{
    const std::vector<std::uint8_t>& bits = fr.bits;
    std::uint64_t e = 0;
    for (std::size_t i = 0; i < bits.size(); i++)
        e += (llr[i] > 0) != (bits[i] == 1);
    c.errors += e;
    c.bits += bits.size();
    c.frames++;
    c.frame_errors += e > 0;
    if (decoder) {
        decoder->decode(llr, info.data());
        c.coded_frame_errors += info != fr.info;
    }
}

// The genie: true timing and offset, the true response, the true noise.
class genie
{
public:
    genie(const frame_format& f, const options& o, const detector_spec& spec)
        : d_f(f), d_rx(o.rx), d_fft(f.num.fft_config(fft_direction::forward, o.rx))
    {
        detector_config dc;
        dc.spec = spec;
        dc.mod = detected_modulation(f.mod); // pi/2-BPSK: turned back below, BPSK
        dc.nt = f.streams;
        dc.nr = o.rx;
        d_det = make_detector_engine(dc, o.backend);
        for (int idx : f.num.carriers())
            d_freq.push_back(idx - f.num.fft_len / 2);
        d_data = data_carriers(f.num);
    }

    void detect(const received_frame& fr, double cfo, float* llr)
    {
        const frame_format& f = d_f;
        const std::size_t len = f.samples(), U = f.num.used_carriers, S = f.symbols();
        const int N = f.num.fft_len, K = f.streams, q = f.num.cp_lengths[0] / 4;
        const std::size_t start = fr.start() - std::size_t(q); // as the synchroniser aims
        d_time.resize(std::size_t(d_rx) * len);
        for (int r = 0; r < d_rx; r++)
            for (std::size_t t = 0; t < len; t++) {
                // The channel turned sample t of its input (rx index t + delay) by
                // e^{2 pi i cfo t}.
                const double tin = double(start + t) - fr.delay;
                d_time[r * len + t] = fr.rx[r * fr.n + start + t] *
                                      std::polar(1.0f, float(-2 * M_PI * cfo * tin));
            }
        d_carriers.resize(std::size_t(d_rx) * S * U);
        ofdm_fft_io io;
        io.in = d_time.data();
        io.in_stride = len;
        io.out = d_carriers.data();
        io.out_stride = S * U;
        io.nsym = S;
        d_fft.process(io);
        // The payload's data carriers (the genie needs no tracking pilots: its phase is
        // the true one), carrier-major, each vector with the true response at its
        // symbol's middle, the window q samples early: taps at delay l + q.
        const int P = f.payload_symbols;
        const std::size_t D = d_data.size(), m = std::size_t(d_rx) * K;
        const std::size_t ntaps = fr.taps.size() / (std::size_t(P) * m);
        d_y.resize(D * P * d_rx);
        d_hd.resize(D * P * m);
        for (std::size_t d = 0; d < D; d++) {
            const std::size_t c = std::size_t(d_data[d]);
            for (int s = 0; s < P; s++) {
                for (int r = 0; r < d_rx; r++) {
                    d_y[(d * P + s) * d_rx + r] =
                        payload_turn_back(f.mod, d) * d_carriers[(r * S + std::size_t(f.payload_symbol_index(s))) * U + c];
                    for (int k = 0; k < K; k++) {
                        const cf* taps = &fr.taps[((std::size_t(s) * d_rx + r) * K + k) * ntaps];
                        cd h = 0;
                        for (std::size_t l = 0; l < ntaps; l++)
                            h += cd(taps[l]) *
                                 std::polar(1.0, -2 * M_PI * double(d_freq[c]) *
                                                     double(int(l) - fr.latency + q) / N);
                        d_hd[((d * P + s) * d_rx + r) * K + k] = cf(h);
                    }
                }
            }
        }
        const float n0 = float(fr.noise_var);
        mimo_batch b;
        b.y = d_y.data();
        b.h = d_hd.data();
        b.noise_var = &n0;
        b.batch = D * P;
        b.nt = K;
        b.nr = d_rx;
        b.group = 1;
        const int bpv = d_det->bits_per_vector();
        d_llr.resize(D * P * bpv);
        d_det->detect(b, d_llr.data());
        for (std::size_t d = 0; d < D; d++) // carrier-major back to the frame's order
            for (int s = 0; s < P; s++)
                std::copy_n(&d_llr[(d * P + s) * bpv], bpv, &llr[(s * D + d) * bpv]);
    }

private:
    frame_format d_f;
    int d_rx;
    cpu_ofdm_fft d_fft;
    std::unique_ptr<detector_engine> d_det;
    std::vector<int> d_freq, d_data;
    std::vector<cf> d_time, d_carriers, d_hd, d_y;
    std::vector<float> d_llr;
};

// The synchroniser's search (search_step, as mimo_ofdm_sync steps through a stream) over
// `samples` samples per antenna of white Gaussian noise alone: the frames it finds there
// are false. Each window is fresh noise (the search only ever sees one window).
std::uint64_t false_frames(const frame_format& f, int rx, double samples, double threshold,
                           std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0.0f, std::sqrt(0.5f));
    const std::size_t n = search_window(f);
    std::vector<cf> window(std::size_t(rx) * n);
    std::uint64_t found = 0;
    double searched = 0;
    while (searched < samples) {
        for (cf& v : window)
            v = cf(g(rng), g(rng));
        const frame_search_step step = search_step(f, window.data(), rx, n, threshold);
        found += step.sync.found;
        searched += double(step.advance);
    }
    return found;
}

// The SNR where a falling curve crosses `target`, log-linear between points; NaN if
// it does not.
double crossing(const std::vector<double>& snr, const std::vector<double>& ber, double target)
{
    for (std::size_t i = 1; i < snr.size(); i++)
        if (ber[i - 1] >= target && ber[i] < target) {
            if (ber[i] <= 0)
                return snr[i];
            const double a = std::log10(ber[i - 1]), b = std::log10(ber[i]);
            return snr[i - 1] + (snr[i] - snr[i - 1]) * (a - std::log10(target)) / (a - b);
        }
    return NAN;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const options o = parse(argc, argv);
        const frame_format f = make_frame_format(o.preset, o.streams, o.modulation, o.payload, o.pilot_interval);
        const std::size_t bits = f.payload_bits(), len = f.samples();
        const int cp0 = f.num.cp_lengths[0];
        const channel_params described = channel_of(f, o);
        validate(described); // named errors before anything runs
        std::cout << "gpumimo_rx_quality: " << o.preset << " " << o.streams << "x" << o.rx << " "
                  << o.modulation << ", " << o.payload << " payload symbols"
                  << (o.pilot_interval ? " (a pilot block every " + std::to_string(o.pilot_interval) + ")" : std::string())
                  << ", " << o.frames
                  << " frames per SNR, " << describe(described, f.num.sample_rate)
                  << ", carrier offset " << o.cfo_spacings << " spacings, backend " << o.backend
                  << ", seed " << o.seed << "\n";
        std::ofstream csv;
        if (!o.csv.empty()) {
            csv.open(o.csv);
            if (!csv)
                throw std::runtime_error("cannot write " + o.csv);
            csv << "detector,receiver,snr_db,frames,frames_found,bit_errors,bits,ber,frame_errors"
                << (o.code.empty() ? "" : ",coded_frame_errors") << "\n";
        }
        // --code: every frame's payload encoded; its LLRs decoded as the LLR sink does.
        std::unique_ptr<coded_payload> coded;
        std::unique_ptr<payload_decoder> decoder;
        if (!o.code.empty()) {
            coded = std::make_unique<coded_payload>(f, o.code);
            decoder = std::make_unique<payload_decoder>(*coded, ldpc_decoder_config(), o.backend);
            std::cout << "payload coded with " << o.code << ": " << coded->codewords()
                      << " codewords of n = " << coded->n() << ", k = " << coded->k()
                      << " per frame, decoded on " << decoder->backend() << "\n";
        }
        std::vector<std::uint8_t> info(coded ? coded->info_bits() : 0);
        for (const std::string& dname : o.detectors) {
            const detector_spec spec(dname);
            genie g(f, o, spec);
            std::vector<std::unique_ptr<fused_receiver_engine>> chains;
            for (const std::string& e : o.estimators) {
                fused_receiver_config c;
                c.frame = f;
                c.rx = o.rx;
                c.algo = spec.algo();
                c.params = spec.params();
                c.estimator = parse_channel_estimator(e);
                chains.push_back(make_fused_receiver_engine(c, o.backend));
            }
            const std::size_t E = o.estimators.size();
            std::vector<std::vector<double>> ber(E + 1), fer(E + 1); // estimators, then the genie
            std::cout << "\n" << dname << "\n"
                      << "SNR dB  found  genie BER";
            for (const std::string& e : o.estimators)
                std::cout << "  " << std::string(std::max<int>(0, 9 - int(e.size())), ' ') << e << " BER";
            if (decoder) {
                std::cout << "  genie FER";
                for (const std::string& e : o.estimators)
                    std::cout << "  " << std::string(std::max<int>(0, 9 - int(e.size())), ' ') << e << " FER";
            }
            std::cout << "\n";
            // The chain's threshold, as mimo_ofdm_sync's search takes it.
            const double threshold =
                o.threshold == automatic_threshold ? sync_threshold(f, o.rx) : o.threshold;
            frame_corrector corr(f);
            std::vector<cf> frame_rx(std::size_t(o.rx) * len);
            std::vector<float> llr(bits);
            for (std::size_t si = 0; si < o.snrs.size(); si++) {
                const double snr = o.snrs[si];
                std::vector<counts> cnt(E + 1);
                std::uint64_t found = 0;
                const auto point_start = std::chrono::steady_clock::now();
                auto last_report = point_start;
                for (int fi = 0; fi < o.frames; fi++) {
                    // A line on stderr every 2 s within a long SNR point (lte20, 4x4,
                    // many frames): how far it is and how long it has left.
                    const auto now = std::chrono::steady_clock::now();
                    if (fi > 0 && now - last_report >= std::chrono::seconds(2)) {
                        last_report = now;
                        const double spent =
                            std::chrono::duration<double>(now - point_start).count();
                        std::fprintf(
                            stderr,
                            "  ... %s, SNR %.1f dB (%zu of %zu): frame %d of %d, %.0f s, "
                            "about %.0f s left at this SNR\n",
                            dname.c_str(),
                            snr,
                            si + 1,
                            o.snrs.size(),
                            fi,
                            o.frames,
                            spent,
                            spent / fi * (o.frames - fi));
                    }
                    const received_frame fr =
                        make_frame(f, o, coded.get(), snr, o.seed ^ (std::uint64_t(si) << 40) ^ std::uint64_t(fi) * 0x9E3779B97F4A7C15ull);
                    g.detect(fr, o.cfo_spacings / f.num.fft_len, llr.data());
                    count(cnt[E], llr.data(), fr, decoder.get(), info);
                    // The chain: one search over the frame's stretch of samples.
                    const frame_sync_result sync = find_frame(f.num, fr.rx.data(), o.rx, fr.n, threshold);
                    // search_step's test too: a candidate repeating on after its symbol
                    // is not taken for a frame.
                    std::vector<const cf*> antennas(std::size_t(o.rx));
                    for (int r = 0; r < o.rx; r++)
                        antennas[std::size_t(r)] = &fr.rx[std::size_t(r) * fr.n];
                    const bool ok = sync.found && sync.start + len <= fr.n &&
                                    std::abs(double(sync.start) - double(fr.start())) <= cp0 / 2.0 &&
                                    !repeats_on(f.num, antennas.data(), o.rx, sync);
                    found += ok;
                    if (ok) {
                        std::vector<const cf*> in(std::size_t(o.rx));
                        std::vector<cf*> out(std::size_t(o.rx));
                        for (int r = 0; r < o.rx; r++) {
                            in[r] = &fr.rx[r * fr.n + sync.start];
                            out[r] = &frame_rx[r * len];
                        }
                        corr.correct(in.data(), o.rx, sync.cfo, out.data());
                        std::vector<const cf*> cin(out.begin(), out.end());
                        for (std::size_t e = 0; e < E; e++) {
                            chains[e]->process(cin.data(), 1, llr.data());
                            count(cnt[e], llr.data(), fr, decoder.get(), info);
                        }
                    } else { // a frame not found: its bits guessed
                        for (std::size_t e = 0; e < E; e++) {
                            cnt[e].errors += bits / 2;
                            cnt[e].bits += bits;
                            cnt[e].frames++;
                            cnt[e].frame_errors++;
                            cnt[e].coded_frame_errors++;
                        }
                    }
                }
                char line[64];
                std::snprintf(line, sizeof line, "%6.1f  %4.0f%%  %9.2e", snr,
                              100.0 * double(found) / o.frames, cnt[E].ber());
                std::cout << line;
                for (std::size_t e = 0; e < E; e++) {
                    std::snprintf(line, sizeof line, "  %13.2e", cnt[e].ber());
                    std::cout << line;
                }
                if (decoder) { // the decoded frames' error rate, genie first
                    std::snprintf(line, sizeof line, "  %9.3f", cnt[E].coded_fer());
                    std::cout << line;
                    for (std::size_t e = 0; e < E; e++) {
                        std::snprintf(line, sizeof line, "  %13.3f", cnt[e].coded_fer());
                        std::cout << line;
                    }
                }
                std::cout << std::endl;
                for (std::size_t e = 0; e <= E; e++) {
                    ber[e].push_back(cnt[e].ber());
                    fer[e].push_back(cnt[e].coded_fer());
                    if (csv) {
                        csv << dname << "," << (e == E ? "genie" : o.estimators[e]) << "," << snr
                            << "," << o.frames << "," << (e == E ? o.frames : int(found)) << ","
                            << cnt[e].errors << "," << cnt[e].bits << "," << cnt[e].ber() << ","
                            << cnt[e].frame_errors;
                        if (decoder)
                            csv << "," << cnt[e].coded_frame_errors;
                        csv << "\n";
                    }
                }
            }
            // The floor: what each receiver leaves at the highest SNR of the sweep (its
            // errors there with no SNR left to buy them down; 0 with the genie at 0 too).
            std::cout << "BER at the highest SNR, " << o.snrs.back() << " dB (the floor): genie "
                      << ber[E].back();
            for (std::size_t e = 0; e < E; e++)
                std::cout << "  " << o.estimators[e] << " " << ber[e].back();
            std::cout << "\n";
            const double genie_at = crossing(o.snrs, ber[E], 1e-2);
            std::cout << "implementation loss at BER 1e-2 (genie at " << genie_at << " dB):";
            for (std::size_t e = 0; e < E; e++)
                std::cout << "  " << o.estimators[e] << " "
                          << crossing(o.snrs, ber[e], 1e-2) - genie_at << " dB";
            std::cout << "\n";
            if (decoder) {
                const double coded_at = crossing(o.snrs, fer[E], 1e-1);
                std::cout << "implementation loss at decoded FER 1e-1 (genie at " << coded_at
                          << " dB):";
                for (std::size_t e = 0; e < E; e++)
                    std::cout << "  " << o.estimators[e] << " "
                              << crossing(o.snrs, fer[e], 1e-1) - coded_at << " dB";
                std::cout << "\n";
            }
        }
        if (o.noise_samples > 0)
            std::cout << "\nnoise alone: " << false_frames(f, o.rx, o.noise_samples, o.threshold, o.seed ^ 0xFA15E)
                      << " frames found in " << o.noise_samples << " samples per antenna ("
                      << o.rx << " antennas, threshold "
                      << (o.threshold == automatic_threshold ? sync_threshold(f, o.rx) : o.threshold)
                      << ")\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gpumimo_rx_quality: " << e.what() << "\n";
        return 2;
    }
}
