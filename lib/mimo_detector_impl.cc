/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM detector block: runs of payload symbols sharing a channel estimate (the
 * mimo_chan_est tags) handed to a core::payload_detector, which detects their data
 * carriers and returns the LLRs in the frame's bit order (on the GPU, carriers in and
 * LLRs out in one copy each, by DMA from and to the page-locked stream buffers). The
 * tracking carriers are skipped: mimo_chanest has already used them
 * (core::phase_tracker).
 */
#include "block_support/block_faults.h"
#include "block_support/device_stream_buffer.h"
#include "block_support/engine_logging.h"
#include "block_support/flowgraph_stop.h"
#include "block_support/host_stand_in.h"
#include "block_support/stream_buffer_sizes.h"
#include "block_support/stream_buffer_pins.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/estimate_items.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>
#include <gnuradio/gpumimo/mimo_detector.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

class mimo_detector_impl : public pinned_while_on_gpu<mimo_detector>, public device_buffer_user
{
    static constexpr std::size_t kSymbolsPerCall = 256;

public:
    // first: the engine for `detector`, made by make() first, since the inputs' buffers
    // depend on where it runs (on the GPU: device-resident, read where mimo_chanest on
    // the GPU wrote them).
    mimo_detector_impl(const core::frame_format& format,
                       int antennas,
                       const core::detector_spec& detector,
                       const std::string& backend,
                       int device,
                       bool int8_output,
                       float int8_scale,
                       early_engine<core::payload_detector>&& first,
                       bool device_buffers,
                       int payload_symbols,
                       bool record_per_symbol)
        : gr::sync_interpolator(
              "mimo_detector",
              input_signature(format, antennas, payload_symbols, record_per_symbol,
                              first.on_gpu() && device_buffers),
              // Float LLRs on the device where the engine runs there, read there by a
              // GPU block (the LDPC decoder); int8 LLRs are quantised on the host.
              gr::io_signature::make(1, 1, int8_output ? sizeof(std::int8_t) : sizeof(float),
                                     first.on_gpu() && device_buffers && !int8_output
                                         ? device_stream_buffer::type
                                         : gr::buffer_double_mapped::type),
              unsigned(format.payload_bits() / std::size_t(format.payload_symbols))),
          d_num(format.num),
          d_mod(format.mod),
          d_backend_request(backend),
          d_device(device),
          d_spec(detector),
          d_nt(format.streams),
          d_nr(antennas),
          d_used(std::size_t(format.num.used_carriers)),
          d_bits(format.payload_bits() / std::size_t(format.payload_symbols)),
          d_int8(int8_output),
          d_int8_scale(int8_scale),
          d_frame_key(pmt::intern("frame_start")),
          d_est_key(pmt::intern("mimo_chan_est")),
          d_payload_symbols(std::size_t(payload_symbols)),
          d_per_symbol(record_per_symbol),
          d_record_span(record_per_symbol ? 1 : d_payload_symbols)
    {
        d_detector = checked(adopt_engine(d_logger, std::move(first)));
        set_tag_propagation_policy(TPP_DONT);
        // Room for runs of several frames a call (on the GPU one round trip for them
        // all): GNU Radio's default buffer holds about one symbol's LLRs (tens of
        // thousands of floats), so that each call would detect a single symbol.
        set_min_output_buffer_on_every_port(*this, long(kSymbolsPerCall * d_bits));
        // The last record kept across calls (a frame's symbols may span two calls):
        // on the host here; on the device made at the first call that needs it.
        if (d_payload_symbols > 0)
            d_current_host.resize(record_layout().item_bytes() * d_record_span);
    }

    // With the estimate input connected, a call that starts a record needs all of it:
    // the items it spans (a frame's payload_symbols, or one where each payload symbol has
    // its own) at least (mimo_chanest passes whole
    // frames, so the input holds them once the frame's first does, and GNU Radio moves
    // a record that the end of a single-mapped buffer cut in two). A call in the middle
    // of a frame (its record kept) needs no more than it detects, so the last frame's
    // symbols are all detected when the input ends. (No output multiple of whole
    // frames instead: GNU Radio sizes a single-mapped (device) input buffer to four
    // times a reader's output multiple counted in the reader's output items, 6 GB for
    // lte20 4x4.)
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        gr::sync_interpolator::forecast(noutput_items, ninput_items_required);
        if (d_record_span > 0 && d_frame_left == 0 &&
            ninput_items_required.size() > std::size_t(d_nr))
            ninput_items_required[d_nr] =
                std::max(ninput_items_required[d_nr], int(d_record_span));
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        // How far records may be read in this call (past its own items).
        d_records_readable =
            ninput_items.size() > std::size_t(d_nr) ? std::size_t(ninput_items[d_nr]) : 0;
        return gr::sync_interpolator::general_work(noutput_items, ninput_items, input_items,
                                                   output_items);
    }

    // The antennas' used carriers, then, where payload_symbols is given, the optional
    // estimate input (core::estimate_items); on the device where the engine runs there.
    static gr::io_signature::sptr input_signature(const core::frame_format& format,
                                                  int antennas,
                                                  int payload_symbols,
                                                  bool per_symbol,
                                                  bool on_device)
    {
        std::vector<int> sizes(std::size_t(antennas),
                               int(sizeof(gr_complex)) * format.num.used_carriers);
        if (payload_symbols > 0)
            sizes.push_back(int(core::estimate_items(std::size_t(format.num.used_carriers),
                                                     std::size_t(antennas), std::size_t(format.streams),
                                                     std::size_t(payload_symbols), per_symbol)
                                    .item_bytes()));
        const gr_vector_buffer_type types(
            sizes.size(), on_device ? device_stream_buffer::type : gr::buffer_double_mapped::type);
        return gr::io_signature::makev(antennas, int(sizes.size()), sizes, types);
    }

    int bits_per_symbol() const override { return int(d_bits); }
    std::string backend() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_detector->backend();
    }
    core::detector_spec detector() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_spec;
    }
    void set_detector(const core::detector_spec& spec) override
    {
        // Built here, in the caller's thread (work() allocates nothing); the bits per
        // symbol depend only on the streams and the modulation, so the output rate stays.
        auto next = make_detector(spec);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_budget_hits_before += d_detector->search_budget_hits();
        d_detector = std::move(next);
        d_spec = spec;
    }
    std::uint64_t search_budget_hits() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_budget_hits_before + d_detector->search_budget_hits();
    }
    std::uint64_t symbols() const override { return d_symbols; }
    std::uint64_t erased_symbols() const override { return d_erased; }

    std::uint64_t work_failures() const override { return d_faults.count(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        const core::cancel_scope stopping(&flowgraph_stopping); // a long CPU search ends on stop()
        std::lock_guard<std::mutex> lock(d_mutex); // set_detector() swaps the engine
        try {
            return detect_symbols(noutput_items, input_items, output_items);
        } catch (...) { // the symbols at hand leave as erasures, counted
            const std::size_t n = std::size_t(noutput_items) / d_bits;
            d_faults.caught("its " + std::to_string(n) + " symbols leave as zero LLRs");
            zero_output(output_items[0], std::size_t(noutput_items));
            d_erased += n;
            d_symbols += n;
            return noutput_items;
        }
    }

private:
    int detect_symbols(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
    {
        std::size_t n = std::size_t(noutput_items) / d_bits;
        const std::uint64_t first = nitems_read(0);
        const bool records = input_items.size() > std::size_t(d_nr);
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, first, first + n, d_est_key);
        std::sort(tags.begin(), tags.end(), tag_t::offset_compare);
        if (records) // up to the first frame whose record is not all readable yet
            for (const tag_t& t : tags) {
                const std::size_t at = std::size_t(t.offset - first);
                if (at > 0 && at + d_record_span > d_records_readable) {
                    n = at;
                    break;
                }
            }
        // Runs of symbols sharing a channel estimate (one a frame), detected together:
        // on the GPU one round trip for the call instead of one a run.
        d_runs.clear();
        std::size_t at = 0;
        d_frame_left -= std::min(d_frame_left, n);
        for (const tag_t& t : tags) {
            const std::size_t offset = std::size_t(t.offset - first);
            if (offset >= n)
                break;
            add_run(at, offset - at);
            at = offset;
            if (records)
                take_record(input_items[d_nr], at);
            else
                take_estimate(t.value);
            d_frame_left = d_record_span - std::min(d_record_span, n - offset);
        }
        add_run(at, n - at);
        detect_runs(input_items, output_items, n);
        if (records)
            keep_current_record();
        move_frame_tags(first, n);
        d_symbols += n;
        return int(n * d_bits);
    }

    core::estimate_items record_layout() const
    {
        return core::estimate_items(d_used, std::size_t(d_nr), std::size_t(d_nt), d_payload_symbols, d_per_symbol);
    }

    // The frame whose record starts at item `at` of the estimate input (all of it
    // readable: forecast() and detect_symbols() see to it for frames on the grid of
    // mimo_chanest's whole frames): its H and noise per carrier read where they lie
    // (device memory between GPU blocks).
    void take_record(const void* estimates, std::size_t at)
    {
        const core::estimate_items items = record_layout();
        d_est_h = d_est_noise = pmt::PMT_NIL;
        if (at + d_record_span > d_records_readable) { // off the frames' grid
            d_record_h = nullptr; // its symbols leave as zeros, counted
            d_record_noise = nullptr;
            d_record_in_input = false;
            return;
        }
        const auto* record = static_cast<const unsigned char*>(estimates) + at * items.item_bytes();
        d_record_h = reinterpret_cast<const gr_complex*>(record);
        d_record_noise = reinterpret_cast<const float*>(record + items.noise_offset());
        d_record_in_input = true;
    }

    // The last frame's record, read from this call's input, which the call consumes:
    // where the frame goes on past the call, copied for its symbols in the next call,
    // into memory of the same kind (device to device between GPU blocks).
    void keep_current_record()
    {
        if (!d_record_in_input || !d_record_h)
            return;
        if (d_frame_left == 0) { // the frame ended in this call: nothing to keep
            d_record_h = nullptr;
            d_record_noise = nullptr;
            d_record_in_input = false;
            return;
        }
        const std::size_t bytes = d_current_host.size();
        unsigned char* to = d_current_host.data();
        if (core::is_device_memory(d_record_h)) {
            if (!d_current_device.get()) // once
                d_current_device = core::device_bytes(bytes, d_device);
            to = reinterpret_cast<unsigned char*>(d_current_device.get());
        }
        core::copy_bytes(to, d_record_h, bytes);
        d_record_h = reinterpret_cast<const gr_complex*>(to);
        d_record_noise = reinterpret_cast<const float*>(to + record_layout().noise_offset());
        d_record_in_input = false;
    }

    // The estimate's H and the detectors' noise per carrier, kept as the tag's own
    // vectors (no copy); no channel where the tag is of the wrong form.
    void take_estimate(const pmt::pmt_t& est)
    {
        d_est_h = d_est_noise = pmt::PMT_NIL;
        d_record_in_input = false;
        d_record_h = nullptr;
        d_record_noise = nullptr;
        const pmt::pmt_t h = pmt::dict_ref(est, pmt::intern("h"), pmt::PMT_NIL);
        const pmt::pmt_t nv = pmt::dict_ref(est, pmt::intern("noise_var"), pmt::PMT_NIL);
        if (!pmt::is_c32vector(h) || !pmt::is_number(nv) ||
            pmt::length(h) != d_used * d_nr * d_nt) {
            d_log.warn("bad tag", [&] {
                return "ignored a mimo_chan_est tag of the wrong form (want h: " +
                       std::to_string(d_used * d_nr * d_nt) + " complex values, noise_var)";
            });
            return;
        }
        // The tag covers every used carrier, as the payload detector takes it. The
        // detectors' noise per carrier: the estimate's effective noise (N0 plus its
        // error, core::channel_estimate::noise_eff) where the tag has it, else N0.
        const pmt::pmt_t eff = pmt::dict_ref(est, pmt::intern("noise_eff"), pmt::PMT_NIL);
        d_est_noise = pmt::is_f32vector(eff) && pmt::length(eff) == d_used
                          ? eff
                          : pmt::init_f32vector(d_used, std::vector<float>(d_used, float(pmt::to_double(nv))));
        // Whether H is finite and of full rank and N0 finite and positive on every data
        // carrier, the detector checks on each run (on the GPU engine, on the device): a
        // run it refuses is erased, with the reason logged ("refused run").
        d_est_h = h;
        std::size_t length = 0;
        d_record_h = pmt::c32vector_elements(h, length);
        d_record_noise = pmt::f32vector_elements(d_est_noise, length);
    }

    // Symbols [at, at + count) of this call, with the estimate taken last.
    void add_run(std::size_t at, std::size_t count)
    {
        if (count > 0)
            d_runs.push_back({ at, count, d_est_h, d_est_noise, d_record_h, d_record_noise });
    }

    // The call's runs detected, LLRs into the output; runs without an estimate of the
    // right form, refused runs and erased symbols leave as zero LLRs, counted.
    void detect_runs(const gr_vector_const_void_star& in, gr_vector_void_star& out, std::size_t n)
    {
        d_erase.assign(n, 1);
        // The int8 output is quantised from float LLRs on the host; the float output is
        // written in place (device memory where it is device-resident).
        float* llr = d_int8 ? (d_llr.resize(n * d_bits), d_llr.data()) : static_cast<float*>(out[0]);
        for (int r = 0; r < d_nr; r++)
            d_run_in[std::size_t(r)] = static_cast<const gr_complex*>(in[r]);
        // Buffers on the GPU and the engine on the CPU (a detector the GPU cannot run,
        // or a fallback after a GPU failure): through host memory.
        d_stand_in.begin();
        // (A record kept on the device, too, after the engine left the GPU.)
        const bool staged =
            cpu_engine_on_device_ports(*this, d_detector->backend()) ||
            (std::string(d_detector->backend()) != "cuda" && d_current_device.get() != nullptr);
        if (staged) {
            for (int r = 0; r < d_nr; r++)
                d_run_in[std::size_t(r)] =
                    d_stand_in.input(std::size_t(r), d_run_in[std::size_t(r)], n * d_used);
            llr = d_stand_in.output(0, llr, n * d_bits);
        }
        d_run_args.clear();
        d_run_carriers.resize(d_runs.size() * std::size_t(d_nr));
        d_run_llr.clear();
        d_run_erased.clear();
        for (std::size_t i = 0; i < d_runs.size(); i++) {
            const pending_run& r = d_runs[i];
            if (!r.h_at) { // no estimate: zeros (the detector writes the others)
                core::zero_bytes(llr + r.at * d_bits, r.count * d_bits * sizeof(float));
                continue;
            }
            const gr_complex** at = d_run_carriers.data() + d_run_args.size() * std::size_t(d_nr);
            for (int a = 0; a < d_nr; a++)
                at[a] = d_run_in[std::size_t(a)] + r.at * d_used;
            core::payload_run run;
            run.carriers = at;
            run.symbols = r.count;
            run.h = r.h_at;
            run.noise = r.noise_at;
            if (staged) { // a record in device memory through host memory too
                const std::size_t port = std::size_t(d_nr) + 1 + 2 * d_run_args.size();
                run.h = d_stand_in.input(port, run.h, d_used * std::size_t(d_nr * d_nt));
                run.noise = d_stand_in.input(port + 1, run.noise, d_used);
            }
            d_run_args.push_back(run);
            d_run_llr.push_back(llr + r.at * d_bits);
            d_run_erased.push_back(d_erase.data() + r.at);
        }
        d_refused.assign(d_run_args.size(), 0);
        std::string why;
        // A GPU failure is redone on the CPU by the engine (core/engine.h), unless the
        // carriers or LLRs are on the device; what still fails reaches work(), which
        // counts it and erases the symbols at hand.
        const std::uint64_t hits_before = d_detector->search_budget_hits();
        if (!d_run_args.empty())
            d_detector->detect_runs(d_run_args.data(), d_run_args.size(), d_run_llr.data(),
                                    d_run_erased.data(), d_refused.data(), &why);
        if (const std::uint64_t hits = d_detector->search_budget_hits() - hits_before)
            d_log.warn("search budget", [&] {
                return std::to_string(hits) + " vectors' searches ran out of their node budget "
                       "(psd_max_nodes): the best decision found so far stands for ML's (" +
                       std::to_string(d_budget_hits_before + d_detector->search_budget_hits()) + " so far)";
            });
        std::size_t erased = 0, refused_symbols = 0;
        for (std::size_t i = 0; i < d_run_args.size(); i++)
            if (d_refused[i]) {
                core::zero_bytes(d_run_llr[i], d_run_args[i].symbols * d_bits * sizeof(float));
                std::fill_n(d_run_erased[i], d_run_args[i].symbols, 1);
                refused_symbols += d_run_args[i].symbols;
            }
        d_stand_in.write_back();
        for (std::size_t s = 0; s < n; s++)
            erased += d_erase[s];
        if (refused_symbols)
            d_log.warn("refused run", [&] {
                return std::to_string(refused_symbols) + " symbols of runs the detector "
                       "refused leave as zero LLRs: " + why;
            });
        if (erased) {
            d_erased += erased;
            d_log.warn("erased symbols", [&] {
                return std::to_string(erased) + " payload symbols left as zero LLRs (" +
                       std::to_string(d_erased) + " in all): non-finite, out-of-range or "
                       "out-of-model carriers, an estimate the detector refused, or no "
                       "channel estimate of the right form";
            });
        }
        if (d_int8)
            core::llr_to_int8(d_llr.data(), n * d_bits, d_int8_scale, static_cast<std::int8_t*>(out[0]));
    }

    // `values` LLRs of zero at out, in host or device memory.
    void zero_output(void* out, std::size_t values) const
    {
        core::zero_bytes(out, values * (d_int8 ? sizeof(std::int8_t) : sizeof(float)));
    }

public:
    static core::payload_detector_config payload_config(const core::numerology& num,
                                                        core::modulation mod,
                                                        int nt,
                                                        int nr,
                                                        const core::detector_spec& spec,
                                                        int device)
    {
        core::payload_detector_config c;
        c.num = num;
        c.detector.spec = spec;
        c.detector.mod = mod;
        c.detector.nt = nt;
        c.detector.nr = nr;
        c.detector.device = device;
        return c;
    }

private:
    int buffer_device() const override { return d_device; }

    std::unique_ptr<core::payload_detector> make_detector(const core::detector_spec& spec)
    {
        const core::payload_detector_config c = payload_config(d_num, d_mod, d_nt, d_nr, spec, d_device);
        return checked(make_logged_engine(d_logger, [&](std::string* why) {
            return core::make_payload_detector(c, d_backend_request, why);
        }));
    }

    std::unique_ptr<core::payload_detector> checked(std::unique_ptr<core::payload_detector> engine) const
    {
        if (engine->llrs_per_symbol() != d_bits)
            throw std::logic_error("mimo_detector: the payload detector's LLRs per symbol "
                                   "differ from the frame's");
        return engine;
    }
    void move_frame_tags(std::uint64_t first, std::size_t n)
    {
        std::vector<tag_t> tags;
        get_tags_in_range(tags, 0, first, first + n, d_frame_key);
        for (const tag_t& t : tags)
            add_item_tag(0, nitems_written(0) + (t.offset - first) * d_bits, t.key, t.value,
                         alias_pmt());
    }

    const core::numerology d_num;
    const core::modulation d_mod;
    const std::string d_backend_request;
    const int d_device;
    mutable std::mutex d_mutex; // d_spec and d_detector: set_detector() against work()
    core::detector_spec d_spec;
    const int d_nt, d_nr;
    // Used carriers per input symbol, LLRs per symbol.
    const std::size_t d_used, d_bits;
    const bool d_int8;
    const float d_int8_scale;
    const pmt::pmt_t d_frame_key, d_est_key;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
    std::unique_ptr<core::payload_detector> d_detector;
    std::uint64_t d_budget_hits_before = 0; // of the detectors set_detector() replaced
    // The last estimate (NIL: none of the right form): its tag's H [used carrier][rx][tx]
    // and the detectors' noise [used carrier].
    pmt::pmt_t d_est_h = pmt::PMT_NIL, d_est_noise = pmt::PMT_NIL;
    // Its H and noise: in those vectors or in a record of this call's estimate input
    // (null: none).
    const gr_complex* d_record_h = nullptr;
    const float* d_record_noise = nullptr;
    const std::size_t d_payload_symbols; // the estimate input's frames (0: none)
    const bool d_per_symbol;             // a record per payload symbol (pilot blocks)
    const std::size_t d_record_span;     // the symbols a record covers (0: no input)
    std::size_t d_records_readable = 0;  // estimate input items this call may read
    std::size_t d_frame_left = 0;        // symbols of the last frame not detected yet
    bool d_record_in_input = false;      // the last estimate is in this call's input
    std::vector<unsigned char> d_current_host; // the last record kept (host input)
    core::device_bytes d_current_device;       // the last record kept (device input)
    struct pending_run {
        std::size_t at, count;  // symbols of the call
        pmt::pmt_t h, noise;    // its estimate's tag vectors (NIL: none, or a record)
        const gr_complex* h_at; // its H (null: no estimate), in h or a record
        const float* noise_at;  // its noise per carrier, in noise or a record
    };
    std::vector<pending_run> d_runs;                      // the call's runs
    std::vector<core::payload_run> d_run_args;            // those with an estimate
    std::vector<const gr_complex*> d_run_carriers;        // [run][rx]
    std::vector<float*> d_run_llr;                        // [run]
    std::vector<std::uint8_t*> d_run_erased;              // [run]
    std::vector<std::uint8_t> d_refused;                  // [run]
    std::vector<const gr_complex*> d_run_in = std::vector<const gr_complex*>(std::size_t(d_nr));
    host_stand_in d_stand_in;             // device buffers, engine on the CPU
    std::vector<std::uint8_t> d_erase;    // [symbol of the call]
    std::vector<float> d_llr;             // int8 output: the call's float LLRs first
    std::uint64_t d_symbols = 0, d_erased = 0;
};

mimo_detector::sptr mimo_detector::make(const std::string& preset,
                                        int streams,
                                        const std::string& modulation,
                                        int antennas,
                                        const core::detector_spec& detector,
                                        const std::string& backend,
                                        bool int8_output,
                                        float int8_scale,
                                        int device,
                                        bool device_buffers,
                                        int payload_symbols,
                                        int pilot_interval)
{
    const core::frame_format f = core::make_frame_format(preset, streams, modulation, 1);
    if (antennas < streams || antennas > core::max_nr)
        throw std::invalid_argument("mimo_detector: antennas must be from streams to 16");
    if (!(int8_scale > 0) || !std::isfinite(int8_scale))
        throw std::invalid_argument("mimo_detector: int8_scale must be finite and > 0");
    if (payload_symbols < 0 || payload_symbols > core::max_payload_symbols)
        throw std::invalid_argument("mimo_detector: payload_symbols must be 0 (no estimate "
                                    "input) to " + std::to_string(core::max_payload_symbols));
    // Frames with pilot blocks: a record per payload symbol in the estimate input
    // (make_frame_format checks the interval against the payload).
    bool per_symbol = false;
    if (payload_symbols > 0)
        per_symbol = core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval)
                         .pilot_blocks() > 1;
    else if (pilot_interval < 0)
        throw std::invalid_argument("mimo_detector: pilot_interval must be >= 0");
    auto first = make_early_engine([&](std::string* why) {
        return core::make_payload_detector(
            mimo_detector_impl::payload_config(f.num, f.mod, f.streams, antennas, detector, device),
            backend, why);
    });
    return gnuradio::make_block_sptr<mimo_detector_impl>(
        f, antennas, detector, backend, device, int8_output, int8_scale, std::move(first),
        device_buffers, payload_symbols, per_symbol);
}

} // namespace gpumimo
} // namespace gr
