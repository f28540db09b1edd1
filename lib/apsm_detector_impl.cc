/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM detector block: pilot collection on a tag or message, training, detection
 * in chunks, LLRs; a thin wrapper over core::apsm_train / apsm_detect and their CUDA
 * versions.
 */
#include "apsm_detector_impl.h"
#include "block_support/engine_logging.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/file_bytes.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpumimo {

namespace {

// Vectors per detection call: the GPU detector's buffers, and the CPU's scratch.
constexpr std::size_t chunk = 4096;

std::vector<gr_complex> read_pilot_file(const std::string& path)
{
    // Pilots for every user and antenna of any training length fit in far less.
    constexpr std::uint64_t max_pilot_file_bytes = 1ull << 30;
    std::vector<char> bytes;
    try {
        bytes = core::read_regular_file(path, max_pilot_file_bytes);
    } catch (const std::runtime_error& e) { // a bad file is a bad argument
        throw std::invalid_argument(std::string("apsm_detector: cannot open pilot_file ") + e.what());
    }
    if (bytes.empty() || bytes.size() % sizeof(gr_complex) != 0)
        throw std::invalid_argument("apsm_detector: pilot_file " + core::quoted_text(path) +
                                    " has " + std::to_string(bytes.size()) +
                                    " bytes, not a whole number of complex64 values");
    std::vector<gr_complex> pilots(bytes.size() / sizeof(gr_complex));
    std::memcpy(pilots.data(), bytes.data(), bytes.size());
    return pilots;
}

// Vectors [at, at + count) of the used ports' streams into dst, symbol x antenna (the
// core's layout).
void gather_vectors(const gr_vector_const_void_star& input_items,
                    const std::vector<int>& ports,
                    std::size_t at,
                    std::size_t count,
                    gr_complex* dst)
{
    // A sample outside the input range (core/limits.h) goes in as NaN: its vector then
    // becomes an erasure, and a training set holding one is refused, as for NaN input.
    const gr_complex nan(std::numeric_limits<float>::quiet_NaN(), 0.0f);
    const std::size_t antennas = ports.size();
    for (std::size_t m = 0; m < antennas; m++) {
        const gr_complex* in = static_cast<const gr_complex*>(input_items[std::size_t(ports[m])]) + at;
        for (std::size_t t = 0; t < count; t++)
            dst[t * antennas + m] = core::is_usable(in[t]) ? in[t] : nan;
    }
}

// The ports a subset names (checked), or every one of `antennas`.
std::vector<int> used_ports(const std::vector<int>& subset, int antennas)
{
    if (subset.empty()) {
        std::vector<int> all(static_cast<std::size_t>(antennas));
        for (int a = 0; a < antennas; a++)
            all[std::size_t(a)] = a;
        return all;
    }
    std::vector<bool> seen(static_cast<std::size_t>(antennas), false);
    for (int a : subset) {
        if (a < 0 || a >= antennas || seen[std::size_t(a)])
            throw std::invalid_argument("apsm_detector: antenna_subset names port " +
                                        std::to_string(a) + ", outside 0.." +
                                        std::to_string(antennas - 1) + " or twice");
        seen[std::size_t(a)] = true;
    }
    return subset;
}

std::vector<int> output_sizes(int users, int bits)
{
    std::vector<int> sizes(users, sizeof(gr_complex));
    sizes.insert(sizes.end(), users, int(bits * sizeof(float)));
    return sizes;
}

} // namespace

apsm_detector::sptr apsm_detector::make(int antennas,
                                        int users,
                                        const std::string& modulation,
                                        const std::vector<gr_complex>& pilots,
                                        int training_len,
                                        const std::string& pilot_file,
                                        const std::string& training_tag,
                                        const std::string& backend,
                                        int device,
                                        int window,
                                        float gaussian_variance,
                                        float linear_weight,
                                        float gaussian_weight,
                                        float epsilon,
                                        int dictionary_size,
                                        int sample_step,
                                        int passes,
                                        bool ls_init,
                                        bool normalize_input,
                                        const std::vector<int>& antenna_subset,
                                        bool ls_guard,
                                        bool track,
                                        int max_training)
{
    if (antennas < 1 || users < 1)
        throw std::invalid_argument("apsm_detector: antennas and users must be >= 1");
    std::vector<int> ports = used_ports(antenna_subset, antennas);
    // Each user's symbols are detected one by one, with no index into a stream to give
    // pi/2-BPSK its turn.
    if (core::parse_modulation(modulation) == core::modulation::pi2_bpsk)
        throw std::invalid_argument("apsm_detector: pi/2-bpsk is not taken (a symbol's turn "
                                    "depends on its index in the user's stream); use bpsk");
    if (!pilots.empty() && !pilot_file.empty())
        throw std::invalid_argument("apsm_detector: give pilots or pilot_file, not both");
    std::vector<gr_complex> p = pilot_file.empty() ? pilots : read_pilot_file(pilot_file);
    if (p.empty())
        throw std::invalid_argument("apsm_detector: no pilots (pilots or pilot_file)");
    if (training_len < 0)
        throw std::invalid_argument("apsm_detector: training_len must be >= 0");
    if (training_len == 0) {
        if (p.size() % users != 0)
            throw std::invalid_argument("apsm_detector: " + std::to_string(p.size()) +
                                        " pilot symbols do not split into " +
                                        std::to_string(users) + " users");
        training_len = int(p.size() / users);
    }
    if (p.size() != std::size_t(users) * training_len)
        throw std::invalid_argument(
            "apsm_detector: " + std::to_string(p.size()) + " pilot symbols, expected users x "
            "training_len = " + std::to_string(std::size_t(users) * training_len));
    for (std::size_t i = 0; i < p.size(); i++)
        if (!std::isfinite(p[i].real()) || !std::isfinite(p[i].imag()))
            throw std::invalid_argument("apsm_detector: pilot " + std::to_string(i) +
                                        " is not finite");
    if (training_tag.empty())
        throw std::invalid_argument("apsm_detector: training_tag must not be empty");
    if (max_training < 0)
        throw std::invalid_argument("apsm_detector: max_training must be >= 0 (0: every pilot)");

    core::apsm_params params;
    params.window = window;
    params.gaussian_variance = gaussian_variance;
    params.linear_weight = linear_weight;
    params.gaussian_weight = gaussian_weight;
    params.epsilon = epsilon;
    params.dictionary_size = dictionary_size;
    params.sample_step = sample_step;
    params.passes = passes;
    params.ls_init = ls_init;
    params.normalize_input = normalize_input;
    params.ls_guard = ls_guard;
    core::validate(params);
    if (track && !(linear_weight > 0))
        throw std::invalid_argument("apsm_detector: track needs linear_weight > 0 (its "
                                    "projections move the linear part)");
    return gnuradio::make_block_sptr<apsm_detector_impl>(antennas,
                                                         users,
                                                         modulation,
                                                         std::move(p),
                                                         training_len,
                                                         backend,
                                                         device,
                                                         params,
                                                         training_tag,
                                                         std::move(ports),
                                                         track,
                                                         max_training);
}

apsm_detector_impl::apsm_detector_impl(int antennas,
                                       int users,
                                       const std::string& modulation,
                                       std::vector<gr_complex> pilots,
                                       int training_len,
                                       const std::string& backend,
                                       int device,
                                       const core::apsm_params& params,
                                       const std::string& training_tag,
                                       std::vector<int> ports,
                                       bool track,
                                       int max_training)
    : gr::sync_block(
          "apsm_detector",
          gr::io_signature::make(antennas, antennas, sizeof(gr_complex)),
          gr::io_signature::makev(
              2 * users,
              2 * users,
              output_sizes(users,
                           core::constellation(core::parse_modulation(modulation))
                               .bits_per_symbol()))),
      d_ports(std::move(ports)),
      d_antennas(int(d_ports.size())),
      d_users(users),
      d_training_len(training_len),
      d_constellation(core::parse_modulation(modulation)),
      d_llr_mapper(d_constellation.mod()),
      d_params(params),
      d_track(track),
      d_pilots(std::move(pilots)),
      d_training_key(pmt::intern(training_tag)),
      d_pilot_rx(std::size_t(training_len) * std::size_t(d_antennas)),
      d_subset(core::training_subset(std::size_t(training_len), std::size_t(max_training))),
      d_rx(chunk * std::size_t(d_antennas)),
      d_soft(chunk * users)
{
    core::apsm_engine_config c;
    c.params = params;
    c.antennas = d_antennas;
    c.users = users;
    c.max_training = d_subset.size();
    if (d_subset.size() < std::size_t(training_len)) { // the subset's symbols, once
        d_subset_rx.resize(d_subset.size() * std::size_t(d_antennas));
        d_subset_pilots.resize(d_subset.size() * std::size_t(users));
        for (int u = 0; u < users; u++)
            for (std::size_t i = 0; i < d_subset.size(); i++)
                d_subset_pilots[std::size_t(u) * d_subset.size() + i] =
                    d_pilots[std::size_t(u) * std::size_t(training_len) + d_subset[i]];
    }
    c.max_symbols = chunk;
    c.device = device;
    d_engine = make_logged_engine(
        d_logger, [&](std::string* why) { return core::make_apsm_engine(c, backend, why); });
    message_port_register_in(pmt::mp("train"));
    set_msg_handler(pmt::mp("train"), [this](const pmt::pmt_t&) { d_train_requested = true; });
}

std::vector<double> apsm_detector_impl::noise_variances() const
{
    std::vector<double> v;
    for (const core::apsm_filter& f : d_filters)
        v.push_back(f.noise_variance);
    return v;
}

void apsm_detector_impl::train()
{
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t n = d_subset.size();
    const gr_complex* rx = d_pilot_rx.data();
    const gr_complex* sent = d_pilots.data();
    if (!d_subset_rx.empty()) { // a subset: its received vectors gathered
        const std::size_t M = std::size_t(d_antennas);
        for (std::size_t i = 0; i < n; i++)
            std::copy_n(&d_pilot_rx[d_subset[i] * M], M, &d_subset_rx[i * M]);
        rx = d_subset_rx.data();
        sent = d_subset_pilots.data();
    }
    std::vector<core::apsm_filter> trained;
    try { // a GPU failure is redone on the CPU by the engine (core/engine.h)
        d_engine->train(rx, n, sent, trained);
    } catch (const std::invalid_argument& e) { // the training set, not the GPU
        d_failed_trainings++;
        d_logger->error("training refused ({}); the previous filters stay", e.what());
        return;
    }
    d_engine->set_filters(trained);
    d_filters = std::move(trained);
    d_trainings++;
    d_last_training_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count();
    d_logger->info("trained {} users on {} pilots in {:.2f} ms ({})",
                   d_users,
                   n,
                   d_last_training_ms,
                   backend());
}

void apsm_detector_impl::detect(std::size_t pos,
                                std::size_t n,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    const int bits = d_constellation.bits_per_symbol();
    if (d_filters.empty()) { // nothing learned yet: erasures
        for (int u = 0; u < d_users; u++) {
            std::fill_n(static_cast<gr_complex*>(output_items[u]) + pos, n, gr_complex(0, 0));
            std::fill_n(static_cast<float*>(output_items[d_users + u]) + pos * bits,
                        n * bits,
                        0.0f);
        }
        d_untrained += n;
        return;
    }
    for (std::size_t done = 0; done < n; done += chunk) {
        const std::size_t c = std::min(chunk, n - done), at = pos + done;
        gather_vectors(input_items, d_ports, at, c, d_rx.data());
        if (d_track) // the filters follow the data symbols (the CPU reference)
            for (int u = 0; u < d_users; u++)
                core::apsm_track(d_params, d_constellation, d_filters[u], d_rx.data(), c,
                                 &d_soft[u * c]);
        else
            d_engine->detect(d_rx.data(), c, d_soft.data()); // GPU failures: as in train()
        std::size_t erased = 0;
        for (int u = 0; u < d_users; u++) {
            gr_complex* soft = static_cast<gr_complex*>(output_items[u]) + at;
            float* llr = static_cast<float*>(output_items[d_users + u]) + at * bits;
            // NaN soft symbols (from NaN or Inf input) give zero LLRs here...
            erased = d_llr_mapper.map(&d_soft[u * c], c, d_filters[u].noise_variance, llr);
            for (std::size_t t = 0; t < c; t++) { // ...and zero soft symbols
                const gr_complex s = d_soft[u * c + t];
                soft[t] = std::isfinite(s.real()) && std::isfinite(s.imag()) ? s
                                                                             : gr_complex(0, 0);
            }
        }
        d_erased += erased;
        if (erased > 0)
            d_log.warn("erased vectors", [&] {
                return "vectors with NaN, Inf or out-of-range samples give zero soft "
                       "symbols and LLRs (" + std::to_string(d_erased) +
                       " so far, counted in erased())";
            });
        d_detected += c - erased;
    }
}

int apsm_detector_impl::work(int noutput_items,
                             gr_vector_const_void_star& input_items,
                             gr_vector_void_star& output_items)
{
    try {
        return detect_and_train(noutput_items, input_items, output_items);
    } catch (...) { // the vectors at hand leave as erasures, counted
        d_faults.caught("its " + std::to_string(noutput_items) +
                        " vectors leave as zero soft symbols and LLRs");
        const int bits = d_constellation.bits_per_symbol();
        for (int u = 0; u < d_users; u++) {
            std::fill_n(static_cast<gr_complex*>(output_items[u]), noutput_items,
                        gr_complex(0, 0));
            std::fill_n(static_cast<float*>(output_items[d_users + u]),
                        std::size_t(noutput_items) * bits, 0.0f);
        }
        d_erased += std::uint64_t(noutput_items);
        d_collecting = false; // a training set cut by the failure is not used
        return noutput_items;
    }
}

int apsm_detector_impl::detect_and_train(int noutput_items,
                                         gr_vector_const_void_star& input_items,
                                         gr_vector_void_star& output_items)
{
    const std::uint64_t base = nitems_read(0);
    const std::size_t n = noutput_items;
    get_tags_in_range(d_tags, 0, base, base + n, d_training_key);
    std::sort(d_tags.begin(), d_tags.end(), [](const tag_t& a, const tag_t& b) {
        return a.offset < b.offset;
    });
    std::size_t pos = 0, next_tag = 0;
    while (pos < n) {
        // A training tag here, or a message since the last call, starts a collection.
        bool start = d_train_requested.exchange(false);
        while (next_tag < d_tags.size() && d_tags[next_tag].offset - base <= pos) {
            start = true;
            next_tag++;
        }
        if (start) {
            if (d_collecting) {
                const std::size_t collected = d_collected;
                d_log.warn("training restarted", [&] {
                    return "training restarted after " + std::to_string(collected) + " of " +
                           std::to_string(d_training_len) + " pilots";
                });
            }
            d_collecting = true;
            d_collected = 0;
        }
        std::size_t seg = n - pos;
        if (next_tag < d_tags.size())
            seg = std::min<std::size_t>(seg, d_tags[next_tag].offset - base - pos);
        if (d_collecting) {
            seg = std::min<std::size_t>(seg, d_training_len - d_collected);
            gather_vectors(input_items, d_ports, pos, seg,
                           &d_pilot_rx[d_collected * d_antennas]);
            d_collected += seg;
        }
        detect(pos, seg, input_items, output_items); // pilots: with the previous filters
        pos += seg;
        if (d_collecting && d_collected == std::size_t(d_training_len)) {
            d_collecting = false;
            train();
        }
    }
    return noutput_items;
}

} // namespace gpumimo
} // namespace gr
