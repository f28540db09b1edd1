/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM frame source block, and the core's frame helpers on numpy arrays
 * (docs/frame.md).
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/core/frame/estimate_items.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/mimo_ofdm_tx.h>

#include "formats/frame_description.h"

#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpumimo;

void bind_frame(py::module& m)
{
    m.attr("FRAME_FORMAT_VERSION") = gr::gpumimo::core::frame_format_version;
    m.def(
        "read_frame_description",
        [](const std::string& path) {
            frame_description f;
            try {
                f = read_frame_description(path);
            } catch (const std::runtime_error& e) { // a bad file is a bad argument
                // through the module's translator, which escapes bytes that are not
                // UTF-8 (a binary file quoted in the message) rather than dropping it
                throw std::invalid_argument(e.what());
            }
            py::dict d;
            d["frame_version"] = f.frame_version;
            d["preset"] = f.preset;
            d["streams"] = f.streams;
            d["antennas"] = f.antennas;
            d["modulation"] = f.modulation;
            d["payload_symbols"] = f.payload_symbols;
            d["pilot_interval"] = f.pilot_interval;
            d["prbs_order"] = f.prbs_order;
            d["prbs_seed"] = f.prbs_seed;
            d["code"] = f.code;
            if (f.frames)
                d["frames"] = *f.frames;
            if (f.gap)
                d["gap"] = *f.gap;
            if (f.delay)
                d["delay"] = *f.delay;
            if (f.snr_db)
                d["snr_db"] = *f.snr_db;
            if (f.cfo_spacings)
                d["cfo_spacings"] = *f.cfo_spacings;
            if (!f.taps.empty())
                d["taps"] = f.taps;
            return d;
        },
        py::arg("path"),
        "A recording's NAME.frame.json as a dict, every field checked (ValueError naming "
        "the file and the field otherwise).");

    py::class_<mimo_ofdm_tx, gr::block, gr::basic_block,
               std::shared_ptr<mimo_ofdm_tx>>(
        m,
        "mimo_ofdm_tx",
        "MIMO-OFDM frame source: Nt streams of frames, the payload from a seeded PRBS "
        "or from an input of packed bytes.")
        .def(py::init(&mimo_ofdm_tx::make),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("seed") = 1,
             py::arg("gap") = 0,
             py::arg("payload") = "prbs",
             py::arg("code") = "",
             py::arg("pilot_interval") = 0)
        .def("frame_len", &mimo_ofdm_tx::frame_len)
        .def("frame_bits", &mimo_ofdm_tx::frame_bits)
        .def("frame_bytes", &mimo_ofdm_tx::frame_bytes)
        .def("frames", &mimo_ofdm_tx::frames)
        .def("work_failures", &mimo_ofdm_tx::work_failures);

    m.def(
        "numerology",
        [](const std::string& preset) {
            const core::numerology n = core::numerology_preset(preset);
            py::dict d;
            d["name"] = n.name;
            d["fft_len"] = n.fft_len;
            d["cp_lengths"] = n.cp_lengths;
            d["used_carriers"] = n.used_carriers;
            d["carriers"] = n.carriers();
            d["tracking_carriers"] = core::tracking_carriers(n);
            d["data_carriers"] = core::data_carriers(n);
            d["sample_rate"] = n.sample_rate;
            d["scale"] = n.fft_config(core::fft_direction::forward, 1).scale;
            return d;
        },
        py::arg("preset"),
        "The numerology of a preset as a dict: name, fft_len, cp_lengths, used_carriers, "
        "carriers (the OFDM FFT block's occupied carriers, fftshift on), "
        "tracking_carriers and data_carriers (indices into the used carriers: the "
        "payload symbols' pilots and payload), sample_rate, scale (the OFDM FFT's, each "
        "way).");

    m.def(
        "estimate_item_bytes",
        [](const std::string& preset, int streams, int antennas, int payload_symbols, int pilot_interval) {
            if (streams < 1 || antennas < 1 || payload_symbols < 1 || pilot_interval < 0)
                throw std::invalid_argument("estimate_item_bytes: sizes must be >= 1, "
                                            "pilot_interval >= 0");
            const core::numerology n = core::numerology_preset(preset);
            return core::estimate_items(std::size_t(n.used_carriers), std::size_t(antennas),
                                        std::size_t(streams), std::size_t(payload_symbols),
                                        pilot_interval > 0)
                .item_bytes();
        },
        py::arg("preset"), py::arg("streams"), py::arg("antennas"), py::arg("payload_symbols"),
        py::arg("pilot_interval") = 0,
        "Bytes of one item of mimo_chanest's estimate output and mimo_detector's estimate "
        "input (core::estimate_items): a frame's record over its payload symbols, or with "
        "pilot blocks (pilot_interval > 0) one payload symbol's record.");

    m.def(
        "frame_info",
        [](const std::string& preset, int streams, const std::string& modulation,
           int payload_symbols,
           int pilot_interval) {
            const core::frame_format f =
                core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
            py::dict d;
            d["samples"] = f.samples();
            d["symbols"] = f.symbols();
            d["pilot_blocks"] = f.pilot_blocks();
            std::vector<int> payload_index(std::size_t(f.payload_symbols)); // OFDM symbol of each
            for (int s = 0; s < f.payload_symbols; s++)
                payload_index[std::size_t(s)] = f.payload_symbol_index(s);
            d["payload_symbol_index"] = payload_index;
            d["payload_bits"] = f.payload_bits();
            d["data_carriers"] = f.data_carrier_count();
            d["bits_per_symbol"] = core::constellation(f.mod).bits_per_symbol();
            // What a detector decides: pi/2-BPSK's payload turned back is BPSK.
            d["detected_modulation"] = core::to_string(core::detected_modulation(f.mod));
            // Mean power per sample of a stream's payload symbols: the used carriers'
            // share of the FFT (unit-energy carriers, scale 1/sqrt(N) each way).
            d["payload_power"] = double(f.num.used_carriers) / double(f.num.fft_len);
            return d;
        },
        py::arg("preset"),
        py::arg("streams"),
        py::arg("modulation"),
        py::arg("payload_symbols"),
        py::arg("pilot_interval") = 0,
        "A frame's sizes as a dict: samples, symbols, pilot_blocks, payload_symbol_index "
        "(each payload symbol's OFDM symbol in the frame), payload_bits, data_carriers (per "
        "payload symbol), bits_per_symbol, detected_modulation (what a detector decides: "
        "bpsk for pi/2-bpsk), payload_power. pilot_interval: a pilot block every that many "
        "payload symbols (frame format 4; 0: one block).");

    m.def(
        "prbs_bits",
        [](int order, std::uint32_t seed, std::size_t n) {
            core::prbs p(order, seed);
            py::array_t<std::uint8_t> out(n);
            p.fill(out.mutable_data(), n);
            return out;
        },
        py::arg("order"),
        py::arg("seed"),
        py::arg("n"),
        "n bits of the maximal-length PRBS of that order (9, 15, 23, 31) from the seed.");

    m.def(
        "frame_samples",
        [](const std::string& preset,
           int streams,
           const std::string& modulation,
           int payload_symbols,
           py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> bits,
           int pilot_interval) {
            const core::frame_format f =
                core::make_frame_format(preset, streams, modulation, payload_symbols, pilot_interval);
            if (std::size_t(bits.size()) != f.payload_bits())
                throw std::invalid_argument("frame_samples: " + std::to_string(bits.size()) +
                                            " bits, the frame carries " +
                                            std::to_string(f.payload_bits()));
            const auto x = core::frame_samples(f, bits.data());
            py::array_t<std::complex<float>> out({ std::size_t(streams), f.samples() });
            std::copy(x.begin(), x.end(), out.mutable_data());
            return out;
        },
        py::arg("preset"),
        py::arg("streams"),
        py::arg("modulation"),
        py::arg("payload_symbols"),
        py::arg("bits"),
        py::arg("pilot_interval") = 0,
        "A frame's time samples [streams, samples] (core::frame_samples); pilot_interval as "
        "frame_info's.");
}
