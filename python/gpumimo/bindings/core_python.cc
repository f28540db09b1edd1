/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bindings of the core's plain types: detector parameters, constellations, backend
 * queries and the LLR output conversions.
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/detect/detector.h>

namespace py = pybind11;
using namespace gr::gpumimo;

void bind_core(py::module& m)
{
    py::class_<core::detector_params>(
        m, "detector_params", "Parameters of the detectors (core::detector_params).")
        .def(py::init<>())
        .def_readwrite("kbest_k", &core::detector_params::kbest_k)
        .def_readwrite("nway_passes", &core::detector_params::nway_passes)
        .def_readwrite("list_llr_clip", &core::detector_params::list_llr_clip)
        .def_readwrite("psd_lvl", &core::detector_params::psd_lvl)
        .def_readwrite("psd_exp", &core::detector_params::psd_exp)
        .def_readwrite("llr_clip", &core::detector_params::llr_clip)
        .def_readwrite("mtt_one_pass", &core::detector_params::mtt_one_pass)
        .def_readwrite("psd_block_search", &core::detector_params::psd_block_search);

    m.def("cuda_built", &core::cuda_built, "True when this build has the CUDA backends.");
    m.def(
        "cuda_device_count",
        [] {
            std::string why;
            const int n = core::cuda_device_count(&why);
            return py::make_tuple(n, why);
        },
        "(count, reason): usable CUDA devices, and why there are none.");

    m.def(
        "_constellation",
        [](const std::string& name) {
            const core::constellation c(core::parse_modulation(name));
            const int q = c.size(), b = c.bits_per_symbol();
            py::array_t<std::complex<float>> points(q);
            py::array_t<std::uint8_t> labels({ q, b });
            auto p = points.mutable_unchecked<1>();
            auto l = labels.mutable_unchecked<2>();
            for (int i = 0; i < q; i++) {
                p(i) = std::complex<float>(c.point(i));
                for (int k = 0; k < b; k++)
                    l(i, k) = static_cast<std::uint8_t>(c.bit(i, k));
            }
            return py::make_tuple(points, labels);
        },
        py::arg("modulation"));

    m.def(
        "_psd_default_levels",
        [](int nt, const std::string& mod) {
            std::vector<int> lvl, exp;
            core::psd_default_levels(nt, core::parse_modulation(mod), lvl, exp);
            return py::make_tuple(lvl, exp);
        },
        py::arg("nt"),
        py::arg("modulation"));

    m.def(
        "_llr_to_int8",
        [](py::array_t<float, py::array::c_style | py::array::forcecast> llr,
           float scale) {
            py::array_t<std::int8_t> out(llr.request().shape);
            core::llr_to_int8(llr.data(), llr.size(), scale, out.mutable_data());
            return out;
        },
        py::arg("llr"),
        py::arg("scale"));
    m.attr("default_int8_scale") = core::default_int8_scale;
}
