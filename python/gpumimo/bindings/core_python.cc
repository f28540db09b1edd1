/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bindings of the core's plain types: detector parameters, constellations, backend
 * queries and the LLR output conversions.
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>
#include <gnuradio/gpumimo/core/detect/registry.h>

namespace py = pybind11;
using namespace gr::gpumimo;

void bind_core(py::module& m)
{
    // Python keeps the flat names (kbest_k, psd_lvl, ...) of each detector's own struct.
    using P = core::detector_params;
    py::class_<P>(m, "detector_params", "Parameters of the detectors (core::detector_params).")
        .def(py::init<>())
        .def_property(
            "kbest_k", [](const P& p) { return p.kbest.k; }, [](P& p, int v) { p.kbest.k = v; })
        .def_property(
            "nway_passes",
            [](const P& p) { return p.nway.passes; },
            [](P& p, int v) { p.nway.passes = v; })
        .def_readwrite("list_llr_clip", &P::list_llr_clip)
        .def_property(
            "psd_lvl",
            [](const P& p) { return p.psd.lvl; },
            [](P& p, const std::vector<int>& v) { p.psd.lvl = v; })
        .def_property(
            "psd_exp",
            [](const P& p) { return p.psd.exp; },
            [](P& p, const std::vector<int>& v) { p.psd.exp = v; })
        .def_readwrite("llr_clip", &P::llr_clip)
        .def_property(
            "mtt_one_pass",
            [](const P& p) { return p.mtt.one_pass; },
            [](P& p, bool v) { p.mtt.one_pass = v; })
        .def_property(
            "psd_block_search",
            [](const P& p) { return p.psd.block_search; },
            [](P& p, bool v) { p.psd.block_search = v; })
        .def_property(
            "psd_max_nodes",
            [](const P& p) { return p.psd.max_nodes; },
            [](P& p, std::int64_t v) { p.psd.max_nodes = v; });

    py::class_<core::detector_spec>(
        m,
        "detector_spec",
        "A detector with all its parameters, as the detector blocks take it "
        "(core/detect/detector_spec.h): detector_spec(\"kbest\", kbest_k=32).")
        .def(py::init([](const std::string& algorithm,
                         int kbest_k,
                         int nway_passes,
                         float list_llr_clip,
                         float llr_clip,
                         const std::vector<int>& psd_lvl,
                         const std::vector<int>& psd_exp,
                         bool psd_block_search,
                         bool mtt_one_pass,
                         std::int64_t psd_max_nodes) {
                 P p;
                 p.kbest.k = kbest_k;
                 p.nway.passes = nway_passes;
                 p.list_llr_clip = list_llr_clip;
                 p.llr_clip = llr_clip;
                 p.psd.lvl = psd_lvl;
                 p.psd.exp = psd_exp;
                 p.psd.block_search = psd_block_search;
                 p.mtt.one_pass = mtt_one_pass;
                 p.psd.max_nodes = psd_max_nodes;
                 return core::detector_spec(algorithm, p);
             }),
             py::arg("algorithm") = "mmse",
             py::arg("kbest_k") = 16,
             py::arg("nway_passes") = 0,
             py::arg("list_llr_clip") = 8.0f,
             py::arg("llr_clip") = 0.0f,
             py::arg("psd_lvl") = std::vector<int>(),
             py::arg("psd_exp") = std::vector<int>(),
             py::arg("psd_block_search") = false,
             py::arg("mtt_one_pass") = false,
             py::arg("psd_max_nodes") = core::detector_params().psd.max_nodes)
        .def(py::init([](const std::string& algorithm, const P& params) {
                 return core::detector_spec(algorithm, params);
             }),
             py::arg("algorithm"),
             py::arg("params"))
        .def_property_readonly("algorithm", &core::detector_spec::name)
        .def_property_readonly("params", &core::detector_spec::params)
        .def("check",
             [](const core::detector_spec& s, const std::string& mod, int nt, int nr) {
                 s.check(core::parse_modulation(mod), nt, nr);
             },
             py::arg("modulation"),
             py::arg("nt"),
             py::arg("nr"),
             "Raises ValueError where nt x nr with this modulation is out of the "
             "detector's reach.")
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def("__repr__", [](const core::detector_spec& s) {
            const P& p = s.params();
            return "detector_spec('" + s.name() + "', kbest_k=" + std::to_string(p.kbest.k) +
                   ", nway_passes=" + std::to_string(p.nway.passes) +
                   ", psd_block_search=" + (p.psd.block_search ? "True" : "False") +
                   ", mtt_one_pass=" + (p.mtt.one_pass ? "True" : "False") + ")";
        });

    m.def("algorithm_names",
          &core::algorithm_names,
          "The detectors of the registry, in its order (core/detect/registry.h).");
    m.def(
        "algorithm_titles",
        [] {
            py::dict d;
            for (const core::detector_entry* e : core::detector_registry())
                d[e->name] = e->title;
            return d;
        },
        "{name: one-line description} of every detector of the registry.");

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
