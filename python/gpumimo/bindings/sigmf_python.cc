/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The multi-channel SigMF source and sink.
 */
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/sigmf_sink.h>
#include <gnuradio/gpumimo/sigmf_source.h>

namespace py = pybind11;
using namespace gr::gpumimo;

void bind_sigmf(py::module& m)
{
    py::class_<sigmf_source, gr::sync_block, gr::block, gr::basic_block,
               std::shared_ptr<sigmf_source>>(
        m, "sigmf_source", "Multi-channel SigMF recording player.")
        .def(py::init(&sigmf_source::make),
             py::arg("collection"),
             py::arg("repeat") = false,
             py::arg("verify_hashes") = true)
        .def("channels", &sigmf_source::channels)
        .def("sample_rate", &sigmf_source::sample_rate)
        .def("center_freq", &sigmf_source::center_freq)
        .def("start_time", &sigmf_source::start_time)
        .def("samples", &sigmf_source::samples)
        .def("unusable_samples", &sigmf_source::unusable_samples)
        .def("work_failures", &sigmf_source::work_failures);

    py::class_<sigmf_sink, gr::sync_block, gr::block, gr::basic_block,
               std::shared_ptr<sigmf_sink>>(
        m, "sigmf_sink", "Multi-channel SigMF recorder.")
        .def(py::init(&sigmf_sink::make),
             py::arg("prefix"),
             py::arg("channels"),
             py::arg("sample_rate"),
             py::arg("center_freq") = 0.0,
             py::arg("datatype") = "ci16_le",
             py::arg("full_scale") = 1.0,
             py::arg("description") = "")
        .def("collection", &sigmf_sink::collection)
        .def("samples", &sigmf_sink::samples)
        .def("clipped_samples", &sigmf_sink::clipped_samples)
        .def("non_finite_samples", &sigmf_sink::non_finite_samples)
        .def("work_failures", &sigmf_sink::work_failures);
}
