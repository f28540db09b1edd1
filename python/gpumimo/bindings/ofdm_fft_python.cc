/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>
#include <gnuradio/gpumimo/ofdm_fft.h>

namespace py = pybind11;
using namespace gr::gpumimo;

void bind_ofdm_fft(py::module& m)
{
    // The longest cyclic-prefix pattern ofdm_fft takes (core::kMaxCpPattern).
    m.attr("OFDM_FFT_MAX_CP_PATTERN") = core::kMaxCpPattern;
    py::class_<ofdm_fft, gr::block, gr::basic_block, std::shared_ptr<ofdm_fft>>(
        m,
        "ofdm_fft",
        "OFDM (de)modulator for C channels: cyclic prefix, batched FFT, occupied "
        "carriers and sample formats, on a GPU or through FFTW.")
        .def(py::init(&ofdm_fft::make),
             py::arg("fft_len"),
             py::arg("cp_lengths"),
             py::arg("occupied_carriers") = std::vector<int>(),
             py::arg("forward") = true,
             py::arg("input_format") = "fc32",
             py::arg("output_format") = "fc32",
             py::arg("shift") = true,
             py::arg("scale") = 1.0f,
             py::arg("window") = std::vector<float>(),
             py::arg("channels") = 1,
             py::arg("backend") = "auto",
             py::arg("devices") = std::vector<int>{ 0 },
             py::arg("batch") = 0,
             py::arg("sync_tag") = "",
             py::arg("device_buffers") = true,
             py::arg("streamed") = true)
        .def("backend", &ofdm_fft::backend)
        .def("carriers", &ofdm_fft::carriers)
        .def("symbols", &ofdm_fft::symbols)
        .def("dropped_samples", &ofdm_fft::dropped_samples)
        .def("dropped_symbols", &ofdm_fft::dropped_symbols)
        .def("zeroed_symbols", &ofdm_fft::zeroed_symbols)
        .def("work_failures", &ofdm_fft::work_failures);
}
