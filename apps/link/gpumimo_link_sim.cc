/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_link_sim: coded (or uncoded) link-level simulation, BER and FER against SNR,
 * one curve per detector (core::link_simulator). Core only: runs where GNU Radio is not
 * installed (the GPU machine). gpumimo_link_plot draws its CSV as PNG figures.
 *
 *   gpumimo_link_sim --nt 4 --nr 4 --modulation 16qam --detectors mtt kbest:16 \
 *       --snr 8:1:14 --csv results.csv
 */
#include "common/cli_numbers.h"

#include <gnuradio/gpumimo/core/link/channel_profiles.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::gpumimo::core;
namespace cli = gpumimo_cli;

namespace {

void usage()
{
    std::printf(
        "usage: gpumimo_link_sim [options]\n"
        "  --nt N --nr N             transmit streams and receive antennas (default 4 4)\n"
        "  --modulation M            bpsk, pi/2-bpsk, qpsk, 16qam, 64qam, 256qam, 1024qam\n"
        "                            (default 16qam)\n"
        "  --detectors D ...         one curve each: ml zf mmse mtt psd, kbest:K, nway:N,\n"
        "                            ot (the one-pass trellis, mtt_one_pass)\n"
        "                            (default mtt)\n"
        "  --snr A:STEP:B | S ...    SNRs per receive antenna in dB (default 0:2:20)\n"
        "  --list-llr-clip C         kbest, nway and psd LLR bound (default 8)\n"
        "  --llr-clip C              clip every detector's LLRs to +-C (default 0: none;\n"
        "                            the curves' labels say 'clip C')\n"
        "  --channel awgn|rayleigh|tdl   (default rayleigh)\n"
        "  --coherence V             rayleigh: vectors per H draw, 0 = one per frame (1)\n"
        "  --taps P0,P1,...          tdl: power delay profile (default 1)\n"
        "  --fft-len N               tdl: subcarriers (default 256)\n"
        "  --model tdl-a|tdl-b|tdl-c  tdl: a TR 38.901 profile, its paths at continuous\n"
        "                            delays (the table's times --delay-spread seconds at\n"
        "                            --sample-rate samples/s; defaults 100e-9, 30.72e6);\n"
        "                            the LOS profiles D and E are not here (the taps are\n"
        "                            Rayleigh)\n"
        "  --uncoded [--frame-bits N]    no LDPC code (default 2304 bits a frame)\n"
        "  --code-n N | --code NAME | --alist FILE\n"
        "                             802.16e rate 1/2, n = 576..2304 (default 2304); a code by\n"
        "                             name (wimax_<n>, nr_bg<1|2>_z<Z>[_rows<r>]); or any code\n"
        "  --decoder min_sum|min_sum_half|sum_product --iterations I --normalisation A --offset B\n"
        "                            (default min_sum, 10, 0.75, 0)\n"
        "  --no-early-termination --no-interleave\n"
        "  --frame-errors E --max-frames F   stop a point at E frame errors or F frames\n"
        "                            (default 100, 10000; E = 0: F frames)\n"
        "  --backend auto|cpu|cuda --device D --precision single|double --threads T\n"
        "  --devices D0,D1,...       GPUs to spread each batch's frames over (same counts)\n"
        "  --max-batch F             largest batch of frames (default: the backend's)\n"
        "  --seed S                  (default: fresh, printed)\n"
        "  --csv FILE                append the results (header when FILE is new)\n"
        "  --title T                 the figure's title in the CSV (default: the setup)\n"
        "  --all-points              every SNR (default: a detector stops at the first\n"
        "                            SNR without a frame error)\n"
        "  --quiet                   no progress lines\n");
}

struct detector_spec {
    algorithm algo;
    detector_params params;
    std::string label;
};

detector_spec parse_detector(const std::string& text, float list_clip, float clip)
{
    detector_spec d;
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const bool one_pass = name == "ot"; // the one-pass trellis: mtt_one_pass
    d.algo = one_pass ? algorithm::mtt : parse_algorithm(name);
    d.params.mtt.one_pass = one_pass;
    d.params.list_llr_clip = list_clip;
    d.label = one_pass ? "one-pass trellis" : name;
    if (colon != std::string::npos) {
        const int value = int(cli::whole("--detectors " + name + ":", text.substr(colon + 1), 1, 1 << 20));
        if (d.algo == algorithm::kbest) {
            d.params.kbest.k = value;
            d.label = "kbest K=" + std::to_string(value);
        } else if (d.algo == algorithm::nway) {
            d.params.nway.passes = value;
            d.label = "nway N=" + std::to_string(value);
        } else {
            throw std::invalid_argument("only kbest:K and nway:N take a number, not '" + text + "'");
        }
    } else if (d.algo == algorithm::kbest) {
        d.label = "kbest K=" + std::to_string(d.params.kbest.k);
    }
    if (clip > 0) {
        d.params.llr_clip = clip;
        char text_clip[32];
        std::snprintf(text_clip, sizeof text_clip, " clip %g", clip);
        d.label += text_clip;
    }
    return d;
}


bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// How long the point has left at its pace so far: it ends at max_frames frames or, when
// sooner, at target_frame_errors frame errors.
std::string point_time_left(const link_point& p, const link_config& config)
{
    if (p.seconds <= 0 || p.counts.frames == 0)
        return "time left not known yet";
    const double frames_per_s = double(p.counts.frames) / p.seconds;
    double left =
        double(config.max_frames - std::min(config.max_frames, p.counts.frames)) /
        frames_per_s;
    if (config.target_frame_errors && p.counts.frame_errors > 0) {
        const double errors_per_s = double(p.counts.frame_errors) / p.seconds;
        const std::uint64_t errors_left =
            config.target_frame_errors -
            std::min(config.target_frame_errors, p.counts.frame_errors);
        left = std::min(left, double(errors_left) / errors_per_s);
    }
    char text[64];
    std::snprintf(text, sizeof text, "about %.0f s left in this point", left);
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    link_config base;
    std::vector<std::string> detector_texts;
    std::vector<double> snrs;
    float list_clip = 8.0f, clip = 0.0f;
    std::string csv_path, title, alist, code_name;
    std::string model; // --model: a TR 38.901 profile for the tdl channel
    double delay_spread = 100e-9, sample_rate = 30.72e6;
    int code_n = 2304;
    bool uncoded = false, quiet = false, seeded = false, all_points = false;
    try {
        for (int i = 1; i < argc; i++) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc)
                    throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            // The values that follow a list option, up to the next option.
            auto values = [&]() {
                std::vector<std::string> out;
                while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0)
                    out.push_back(argv[++i]);
                if (out.empty())
                    throw std::invalid_argument(a + " needs at least one value");
                return out;
            };
            if (a == "--help" || a == "-h") {
                usage();
                return 0;
            } else if (a == "--nt") base.nt = int(cli::whole(a, value(), 1, 8));
            else if (a == "--nr") base.nr = int(cli::whole(a, value(), 1, 16));
            else if (a == "--modulation") base.mod = parse_modulation(value());
            else if (a == "--detectors") {
                detector_texts = values();
                for (const std::string& d : detector_texts)
                    if (d.empty())
                        throw std::invalid_argument("--detectors: an empty name (one of the registry's, "
                                                    "kbest:K, nway:N or ot)");
            }
            else if (a == "--snr") {
                for (const auto& v : values())
                    for (double s : cli::numbers(a, v, -100, 200))
                        snrs.push_back(s);
                if (snrs.size() > cli::max_points)
                    throw std::invalid_argument("--snr: more than " + std::to_string(cli::max_points) + " points");
            } else if (a == "--list-llr-clip") list_clip = float(cli::number(a, value(), 0, 1e30));
            else if (a == "--llr-clip") clip = float(cli::number(a, value(), 0, 1e30));
            else if (a == "--channel") base.channel = parse_link_channel(value());
            else if (a == "--coherence") base.coherence_vectors = int(cli::whole(a, value(), 1, 1 << 30));
            else if (a == "--taps") base.tap_powers = cli::numbers(a, value(), 0, 1e6);
            else if (a == "--fft-len") base.tdl_fft_len = int(cli::whole(a, value(), 1, 1 << 20));
            else if (a == "--model") model = value();
            else if (a == "--delay-spread") delay_spread = cli::number(a, value(), 0, 1e-3);
            else if (a == "--sample-rate") sample_rate = cli::number(a, value(), 1, 1e12);
            else if (a == "--uncoded") uncoded = true;
            else if (a == "--frame-bits") base.uncoded_frame_bits = int(cli::whole(a, value(), 1, 1 << 24));
            else if (a == "--code-n") code_n = int(cli::whole(a, value(), 1, 1 << 24));
            else if (a == "--alist") alist = value();
            else if (a == "--code") code_name = value();
            else if (a == "--decoder") base.decoder.algorithm = ldpc_algorithm_from_string(value());
            else if (a == "--iterations") base.decoder.max_iterations = int(cli::whole(a, value(), 1, 10000));
            else if (a == "--normalisation") base.decoder.normalisation = float(cli::number(a, value(), 0, 1e6));
            else if (a == "--offset") base.decoder.offset = float(cli::number(a, value(), 0, 1e6));
            else if (a == "--no-early-termination") base.decoder.early_termination = false;
            else if (a == "--no-interleave") base.interleave = false;
            else if (a == "--frame-errors") base.target_frame_errors = std::uint64_t(cli::whole(a, value(), 1, 1LL << 40));
            else if (a == "--max-frames") base.max_frames = std::uint64_t(cli::whole(a, value(), 1, 1LL << 40));
            else if (a == "--backend") base.backend = value();
            else if (a == "--device") base.device = int(cli::whole(a, value(), 0, 1023));
            else if (a == "--devices") { // GPUs to spread each batch over
                base.devices.clear();
                for (const std::string& d : cli::names(a, value()))
                    base.devices.push_back(int(cli::whole(a, d, 0, 1023)));
            }
            else if (a == "--precision") {
                const std::string p = value();
                if (p != "single" && p != "double")
                    throw std::invalid_argument("--precision is single or double");
                base.precision = p == "double" ? gpu_precision::double_ : gpu_precision::single;
            } else if (a == "--threads") base.threads = unsigned(cli::whole(a, value(), 0, 1024));
            else if (a == "--max-batch") base.max_batch_frames = std::uint64_t(cli::whole(a, value(), 1, 1LL << 30));
            else if (a == "--seed") {
                base.seed = cli::unsigned_whole(a, value(), UINT64_MAX);
                seeded = true;
            } else if (a == "--csv") csv_path = value();
            else if (a == "--title") title = value();
            else if (a == "--quiet") quiet = true;
            else if (a == "--all-points") all_points = true;
            else throw std::invalid_argument("unknown option " + a + " (--help lists them)");
        }
        if (detector_texts.empty())
            detector_texts = { "mtt" };
        if (snrs.empty())
            snrs = cli::numbers("--snr", "0:2:20", -100, 200);
        if (uncoded)
            base.code = ldpc_code();
        else if (!alist.empty())
            base.code = load_alist(alist);
        else if (!code_name.empty())
            base.code = ldpc_code_by_name(code_name);
        else if (code_n != 2304)
            base.code = wimax_rate_half_code(code_n);
        if (!seeded)
            base.seed = std::random_device{}();
        if (!model.empty()) {
            if (base.channel != link_channel::tdl)
                throw std::invalid_argument("--model goes with --channel tdl");
            if (model == "tdl-d" || model == "tdl-e")
                throw std::invalid_argument("--model " + model + ": the LOS profiles are not in the "
                                            "link simulator (its taps are Rayleigh); tdl-a, tdl-b or tdl-c");
            base.tap_powers.clear();
            base.tap_delays.clear();
            for (const channel_path& p : tdl_paths(model, delay_spread, sample_rate, NAN)) {
                base.tap_powers.push_back(p.power);
                base.tap_delays.push_back(p.delay);
            }
        }

        const std::string code_name = uncoded ? "uncoded" : base.code.name;
        if (title.empty())
            title = std::to_string(base.nt) + "x" + std::to_string(base.nr) + " " +
                    to_string(base.mod) + ", " +
                    (model.empty() ? to_string(base.channel)
                                   : model + " " + std::to_string(int(std::lround(delay_spread * 1e9))) + " ns") +
                    ", " + code_name;
        std::printf("gpumimo_link_sim: %s; seed %llu; %s %d iterations%s\n",
                    title.c_str(),
                    (unsigned long long)base.seed,
                    uncoded ? "no decoder," : to_string(base.decoder.algorithm),
                    uncoded ? 0 : base.decoder.max_iterations,
                    "; SNR per receive antenna");

        std::ofstream csv;
        if (!csv_path.empty()) {
            const bool fresh = !file_exists(csv_path);
            csv.open(csv_path, std::ios::app);
            if (!csv)
                throw std::runtime_error("cannot write " + csv_path);
            if (fresh)
                csv << "title,detector,nt,nr,modulation,channel,code,decoder,iterations,seed,"
                       "backend,snr_db,ebn0_db,frames,frame_errors,fer,info_bits,bit_errors,"
                       "ber,raw_ber,mean_iterations,seconds,frames_per_s\n";
        }

        for (const std::string& text : detector_texts) {
            const detector_spec det = parse_detector(text, list_clip, clip);
            link_config config = base;
            config.algo = det.algo;
            config.detector = det.params;
            link_simulator sim(config);
            if (!sim.fallback_reason().empty())
                std::fprintf(stderr, "gpumimo_link_sim: on the CPU: %s\n", sim.fallback_reason().c_str());
            std::printf("\n%s on %s (%d vectors a frame)\n", det.label.c_str(),
                        sim.backend().c_str(), sim.setup().layout.vectors);
            std::printf("%8s %8s %9s %7s %10s %10s %10s %6s %9s\n", "SNR(dB)", "Eb/N0", "frames",
                        "errors", "FER", "BER", "raw BER", "iter", "frames/s");
            auto last = std::chrono::steady_clock::now();
            std::size_t point_index = 0;
            auto progress = [&](const link_point& p) {
                const auto now = std::chrono::steady_clock::now();
                if (quiet || now - last < std::chrono::seconds(2))
                    return;
                last = now;
                std::fprintf(
                    stderr,
                    "  ... %s, point %zu of %zu (SNR %.2f dB): %llu of at most %llu "
                    "frames, %llu frame errors%s, %.0f s, %s\n",
                    det.label.c_str(),
                    point_index + 1,
                    snrs.size(),
                    p.snr_db,
                    (unsigned long long)p.counts.frames,
                    (unsigned long long)config.max_frames,
                    (unsigned long long)p.counts.frame_errors,
                    config.target_frame_errors
                        ? (" of " + std::to_string(config.target_frame_errors)).c_str()
                        : "",
                    p.seconds,
                    point_time_left(p, config).c_str());
            };
            for (std::size_t i = 0; i < snrs.size(); i++) {
                point_index = i;
                const link_point p = sim.run_point(std::uint32_t(i), snrs[i], progress);
                const double rate = p.seconds > 0 ? p.counts.frames / p.seconds : 0;
                std::printf("%8.2f %8.2f %9llu %7llu %10.3e %10.3e %10.3e %6.2f %9.0f\n", p.snr_db,
                            p.ebn0_db, (unsigned long long)p.counts.frames,
                            (unsigned long long)p.counts.frame_errors, p.fer(), p.ber(), p.raw_ber(),
                            p.mean_iterations(), rate);
                std::fflush(stdout);
                if (csv.is_open()) {
                    csv << '"' << title << "\",\"" << det.label << "\"," << config.nt << ','
                        << config.nr << ',' << to_string(config.mod) << ','
                        << to_string(config.channel) << ",\"" << code_name << "\","
                        << (uncoded ? "none" : to_string(config.decoder.algorithm)) << ','
                        << (uncoded ? 0 : config.decoder.max_iterations) << ',' << config.seed << ','
                        << sim.backend() << ',' << p.snr_db << ',' << p.ebn0_db << ','
                        << p.counts.frames << ',' << p.counts.frame_errors << ',' << p.fer() << ','
                        << p.counts.info_bits << ',' << p.counts.bit_errors << ',' << p.ber() << ','
                        << p.raw_ber() << ',' << p.mean_iterations() << ',' << p.seconds << ','
                        << rate << '\n';
                    csv.flush();
                }
                if (p.counts.frame_errors == 0 && !all_points)
                    break; // higher SNRs would show no errors either
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpumimo_link_sim: %s\n", e.what());
        return 2;
    }
    return 0;
}
