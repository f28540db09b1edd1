/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpumimo_apsm_ota: the APSM multiuser detector (or the least-squares one) on the
 * over-the-air recordings of examples/recordings/apsm-ota. Trains every user on the training
 * symbols, detects the data symbols, prints per user SER, BER (nearest-point decisions
 * on the unit-energy constellation), training and detection time. Core only: runs where
 * GNU Radio is not installed (the GPU machine).
 *
 *   gpumimo_apsm_ota [--data DIR | --rx FILE --tx FILE] [options]
 */
#include "common/cli_numbers.h"

#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>
#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::gpumimo::core;
namespace cli = gpumimo_cli;

namespace {

void usage()
{
    std::printf(
        "usage: gpumimo_apsm_ota [--data DIR | --rx FILE --tx FILE] [options]\n"
        "  --data DIR          run all four recordings of DIR (apsm-ota: rx/{ofdm,time}, tx)\n"
        "  --detector apsm|ls  APSM (default) or linear least squares\n"
        "  --backend cpu|cuda  detection on the CPU reference (default) or the GPU, all\n"
        "                      users at once (training too, unless --norm-bound or --detector ls)\n"
        "  --library-defaults  the public library's parameters (else gr-gpumimo's defaults)\n"
        "  --window W  --variance S2  --gaussian-weight WG  --linear-weight WL\n"
        "  --epsilon E  --passes P  --dictionary D  --sample-step S  --norm-bound B\n"
        "  --ls-init | --no-ls-init   --no-variance-scaling   --normalize | --no-normalize\n"
        "  --antennas N | a,b,c  N antennas of the array (--antenna-pattern), or these ports\n"
        "  --antenna-pattern first|equidistant   which N (default equidistant: spread evenly)\n"
        "  --sweep-antennas N1,N2,...  per recording, SER and BER per user for each count\n"
        "  --ls-guard | --no-ls-guard  least squares for a user where it matches a held-out\n"
        "                      quarter of the pilots better (default on; off with the\n"
        "                      library's defaults)\n"
        "  --track             APSM tracking on the data symbols (decision-directed, CPU)\n"
        "  --tracking-linear-weight WT  its projections' linear weight (default 1)\n");
}

struct run_result {
    std::vector<double> ser, ber, library_ser, train_ms, detect_ms;
    apsm_guard_report guard; // the CPU's guarded training: who got least squares
    double gpu_kernel_ms = -1, gpu_total_ms = -1; // all users at once (--backend cuda)
    double gpu_train_kernel_ms = -1, gpu_train_total_ms = -1;
};


double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
        .count();
}

run_result run(const apsm_recording& rec, const apsm_params& p, bool use_ls, bool cuda,
               bool track = false)
{
    const constellation c(rec.mod);
    const int m = c.bits_per_symbol();
    const std::size_t n = rec.data_symbols;
    run_result out;
    std::vector<apsm_filter> filters;
    // --backend cuda: the GPU engine (make_apsm_engine) for all users at once.
    std::unique_ptr<apsm_engine> gpu;
    if (cuda) {
        apsm_engine_config ec;
        ec.params = p;
        ec.antennas = rec.antennas;
        ec.users = rec.users();
        ec.max_training = rec.training_symbols;
        ec.max_symbols = n;
        gpu = make_apsm_engine(ec, "cuda");
    }
    if (cuda && !use_ls && p.norm_bound == 0) { // all users at once, on the GPU
        std::vector<std::complex<float>> sent;
        for (int u = 0; u < rec.users(); u++)
            sent.insert(sent.end(), rec.sent_training[u].begin(), rec.sent_training[u].end());
        gpu->train(rec.rx_training.data(), rec.training_symbols, sent.data(), filters); // warm-up
        const auto t0 = std::chrono::steady_clock::now();
        gpu->train(rec.rx_training.data(), rec.training_symbols, sent.data(), filters);
        out.gpu_train_total_ms = ms_since(t0);
        out.gpu_train_kernel_ms = gpu->last_kernel_ms();
    }
    if (filters.empty() && !use_ls && p.ls_guard) { // the CPU engine's guarded training
        std::vector<std::complex<float>> sent;
        for (int u = 0; u < rec.users(); u++)
            sent.insert(sent.end(), rec.sent_training[u].begin(), rec.sent_training[u].end());
        const auto t0 = std::chrono::steady_clock::now();
        filters = apsm_train_guarded(p, rec.rx_training.data(), rec.training_symbols,
                                     rec.antennas, rec.users(), sent.data(), &out.guard);
        out.train_ms.assign(rec.users(), ms_since(t0) / rec.users()); // all users at once
    }
    for (int u = int(filters.size()); u < rec.users(); u++) {
        const auto t0 = std::chrono::steady_clock::now();
        filters.push_back(use_ls ? ls_train(rec.rx_training.data(), rec.training_symbols,
                                            rec.antennas, rec.sent_training[u].data())
                                 : apsm_train(p, rec.rx_training.data(), rec.training_symbols,
                                              rec.antennas, rec.sent_training[u].data()));
        out.train_ms.push_back(ms_since(t0));
    }
    std::vector<std::complex<float>> soft(n * rec.users());
    if (cuda) { // all users at once; medians of 21 runs after one warm-up
        gpu->set_filters(filters);
        gpu->detect(rec.rx_data.data(), n, soft.data());
        std::vector<double> kernel, total;
        for (int r = 0; r < 21; r++) {
            const auto t0 = std::chrono::steady_clock::now();
            gpu->detect(rec.rx_data.data(), n, soft.data());
            total.push_back(ms_since(t0));
            kernel.push_back(gpu->last_kernel_ms());
        }
        std::sort(kernel.begin(), kernel.end());
        std::sort(total.begin(), total.end());
        out.gpu_kernel_ms = kernel[10];
        out.gpu_total_ms = total[10];
    } else {
        for (int u = 0; u < rec.users(); u++) {
            const auto t0 = std::chrono::steady_clock::now();
            if (track) // decision-directed updates on the data symbols (apsm_track)
                apsm_track(p, c, filters[u], rec.rx_data.data(), n, &soft[u * n]);
            else
                apsm_detect(filters[u], rec.rx_data.data(), n, &soft[u * n]);
            out.detect_ms.push_back(ms_since(t0));
        }
    }
    for (int u = 0; u < rec.users(); u++) {
        const symbol_errors e = count_symbol_errors(c, &soft[u * n], rec.sent_data[u].data(), n);
        out.ser.push_back(100.0 * e.symbols / n);
        out.ber.push_back(100.0 * e.bits / (n * m));
        out.library_ser.push_back(100.0 * e.libapsm_symbols / n);
    }
    return out;
}

// A list of antenna counts or numbers (--antennas, --sweep-antennas).
std::vector<int> numbers(const std::string& option, const std::string& list)
{
    std::vector<int> out;
    for (const std::string& item : cli::names(option, list))
        out.push_back(int(cli::whole(option, item, 0, 1 << 20)));
    return out;
}

// The antennas --antennas names: a count (one number, taken by the pattern) or a list.
std::vector<int> chosen_antennas(const std::string& spec, const std::string& pattern, int total)
{
    const std::vector<int> v = numbers("--antennas", spec);
    return spec.find(',') == std::string::npos ? antenna_subset(pattern, v[0], total) : v;
}

// Whether the guard gave user u the least-squares filter (the CPU's guarded training).
bool least_squares(const run_result& r, int u)
{
    return std::size_t(u) < r.guard.least_squares.size() && r.guard.least_squares[std::size_t(u)];
}

// SER and BER per user against the number of antennas (the pattern's subsets); L marks
// a user the least-squares guard gave least squares.
void sweep(const std::string& name,
           const apsm_recording& rec,
           const std::vector<int>& counts,
           const std::string& pattern,
           const apsm_params& p,
           bool use_ls)
{
    std::printf("%s: %s, %s, %s antennas\n", name.c_str(), to_string(rec.mod).c_str(),
                use_ls ? "least squares" : "APSM", pattern.c_str());
    std::printf("  antennas");
    for (int u = 0; u < rec.users(); u++)
        std::printf("  user %d SER%%/BER%%", rec.user_slots[std::size_t(u)]);
    std::printf("\n");
    for (int n : counts) {
        const run_result r =
            run(select_antennas(rec, antenna_subset(pattern, n, rec.antennas)), p, use_ls, false);
        std::printf("  %8d", n);
        for (int u = 0; u < rec.users(); u++)
            std::printf("  %7.3f/%7.3f%s", r.ser[std::size_t(u)], r.ber[std::size_t(u)],
                        least_squares(r, u) ? "L" : " ");
        std::printf("\n");
    }
}

void print(const std::string& name, const apsm_recording& rec, const run_result& r)
{
    std::string guarded;
    for (int u = 0; u < rec.users(); u++)
        if (least_squares(r, u))
            guarded += " " + std::to_string(rec.user_slots[u]);
    std::printf("%s: %s, %d antennas, %zu training and %zu data symbols\n",
                name.c_str(),
                to_string(rec.mod).c_str(),
                rec.antennas,
                rec.training_symbols,
                rec.data_symbols);
    std::printf("  user   SER %%    BER %%  (libapsm's SER %%)  train ms  detect ms\n");
    for (int u = 0; u < rec.users(); u++)
        std::printf("  %4d %7.3f  %7.3f  (%7.3f)         %9.2f  %9.2f\n",
                    rec.user_slots[u],
                    r.ser[u],
                    r.ber[u],
                    r.library_ser[u],
                    r.train_ms.empty() ? 0.0 : r.train_ms[u],
                    r.detect_ms.empty() ? 0.0 : r.detect_ms[u]);
    if (!r.guard.least_squares.empty())
        std::printf("  least-squares guard (%zu pilots fitted, %zu held out): least squares "
                    "for users%s\n",
                    r.guard.fitted,
                    r.guard.held_out,
                    guarded.empty() ? " none" : guarded.c_str());
    if (r.gpu_train_kernel_ms >= 0)
        std::printf("  GPU training, all %d users at once: kernel %.3f ms, host to host %.3f ms\n",
                    rec.users(),
                    r.gpu_train_kernel_ms,
                    r.gpu_train_total_ms);
    if (r.gpu_kernel_ms >= 0)
        std::printf("  GPU detection, all %d users at once (median of 21): kernel %.1f us, "
                    "host to host %.1f us\n",
                    rec.users(),
                    1e3 * r.gpu_kernel_ms,
                    1e3 * r.gpu_total_ms);
}

} // namespace

int main(int argc, char** argv)
{
    std::string data_dir, rx_path, tx_path, antennas, sweep_counts;
    std::string pattern = "equidistant";
    bool use_ls = false, cuda = false, track = false;
    apsm_params p;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--data")
            data_dir = value();
        else if (a == "--rx")
            rx_path = value();
        else if (a == "--tx")
            tx_path = value();
        else if (a == "--detector") {
            const std::string d = value();
            if (d != "apsm" && d != "ls") {
                std::fprintf(stderr, "--detector: apsm or ls\n");
                return 2;
            }
            use_ls = d == "ls";
        } else if (a == "--backend") {
            const std::string b = value();
            if (b != "cpu" && b != "cuda") {
                std::fprintf(stderr, "--backend: cpu or cuda\n");
                return 2;
            }
            cuda = b == "cuda";
        } else if (a == "--library-defaults")
            p = apsm_params::library_defaults();
        else if (a == "--window")
            p.window = int(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::whole(a, value(), 1, 1 << 20); }));
        else if (a == "--variance")
            p.gaussian_variance = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 1e-30, 1e30); }));
        else if (a == "--gaussian-weight")
            p.gaussian_weight = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 0, 1e30); }));
        else if (a == "--linear-weight")
            p.linear_weight = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 0, 1e30); }));
        else if (a == "--epsilon")
            p.epsilon = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 0, 1e30); }));
        else if (a == "--passes")
            p.passes = int(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::whole(a, value(), 1, 1 << 20); }));
        else if (a == "--dictionary")
            p.dictionary_size = int(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::whole(a, value(), 1, 1 << 24); }));
        else if (a == "--sample-step")
            p.sample_step = int(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::whole(a, value(), 1, 1 << 20); }));
        else if (a == "--norm-bound")
            p.norm_bound = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 0, 1e30); }));
        else if (a == "--ls-init")
            p.ls_init = true;
        else if (a == "--no-ls-init")
            p.ls_init = false;
        else if (a == "--no-variance-scaling")
            p.scale_variance_by_antennas = false;
        else if (a == "--normalize")
            p.normalize_input = true;
        else if (a == "--no-normalize")
            p.normalize_input = false;
        else if (a == "--track")
            track = true;
        else if (a == "--ls-guard")
            p.ls_guard = true;
        else if (a == "--no-ls-guard")
            p.ls_guard = false;
        else if (a == "--tracking-linear-weight")
            p.tracking_linear_weight = float(cli::or_exit("gpumimo_apsm_ota", [&] { return cli::number(a, value(), 0, 1e30); }));
        else if (a == "--antennas")
            antennas = value();
        else if (a == "--antenna-pattern")
            pattern = value();
        else if (a == "--sweep-antennas")
            sweep_counts = value();
        else if (a == "-h" || a == "--help") {
            usage();
            return 0;
        } else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            usage();
            return 2;
        }
    }
    std::vector<apsm_ota_file> runs;
    if (!data_dir.empty()) {
        runs = apsm_ota_files(data_dir);
    } else if (!rx_path.empty() && !tx_path.empty()) {
        runs.push_back({ rx_path, rx_path, tx_path });
    } else {
        usage();
        return 2;
    }
    if (track && (use_ls || cuda)) {
        std::fprintf(stderr, "--track: APSM on the CPU (not --detector ls, not --backend cuda)\n");
        return 2;
    }
    try {
        if (!use_ls)
            validate(p);
        std::printf("detector: %s", use_ls ? "least squares\n" : track ? "APSM, tracking on the data" : "APSM");
        if (!use_ls)
            std::printf(" (wL %g, wG %g, sigma^2 %g%s, W %d, step %d, passes %d, dictionary "
                        "%d, epsilon %g, LS init %s, norm bound %g, normalized input %s, "
                        "least-squares guard %s)\n",
                        p.linear_weight,
                        p.gaussian_weight,
                        p.gaussian_variance,
                        p.scale_variance_by_antennas ? " x M^2" : "",
                        p.window,
                        p.sample_step,
                        p.passes,
                        p.dictionary_size,
                        p.epsilon,
                        p.ls_init ? "yes" : "no",
                        p.norm_bound,
                        p.normalize_input ? "yes" : "no",
                        p.ls_guard ? "on" : "off");
        for (const apsm_ota_file& f : runs) {
            apsm_recording rec = load_apsm_recording(f.rx_path, f.tx_path);
            if (!sweep_counts.empty()) {
                sweep(f.name, rec, numbers("--sweep-antennas", sweep_counts), pattern, p, use_ls);
                continue;
            }
            if (!antennas.empty())
                rec = select_antennas(rec, chosen_antennas(antennas, pattern, rec.antennas));
            print(f.name, rec, run(rec, p, use_ls, cuda, track));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpumimo_apsm_ota: %s\n", e.what());
        return 1;
    }
    return 0;
}
