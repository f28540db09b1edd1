/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/batch_detector.h>

namespace py = pybind11;
using namespace gr::gpumimo;

template <typename T>
using carray = py::array_t<T, py::array::c_style | py::array::forcecast>;

namespace {

// y [B, nr], h [C, nr, nt] with C = ceil(B / group), noise_var [1] or [C]: LLRs [B,
// nt*m].
py::array_t<float> detect(const batch_detector& det,
                          carray<std::complex<float>> y,
                          carray<std::complex<float>> h,
                          carray<float> noise_var,
                          std::size_t group,
                          unsigned threads)
{
    const batch_detector& ref = det;
    if (y.ndim() != 2 || y.shape(1) != ref.nr())
        throw py::value_error("y must have shape [batch, nr] with nr = " +
                              std::to_string(ref.nr()));
    if (group < 1)
        throw py::value_error("group must be at least 1");
    core::mimo_batch b;
    b.batch = static_cast<std::size_t>(y.shape(0));
    b.nt = ref.nt();
    b.nr = ref.nr();
    b.group = group;
    const std::size_t nch = b.num_channels();
    if (h.ndim() != 3 || static_cast<std::size_t>(h.shape(0)) != nch ||
        h.shape(1) != ref.nr() || h.shape(2) != ref.nt())
        throw py::value_error("H must have shape [" + std::to_string(nch) + ", " +
                              std::to_string(ref.nr()) + ", " + std::to_string(ref.nt()) +
                              "] (ceil(batch / group), nr, nt)");
    if (noise_var.ndim() != 1 ||
        (noise_var.shape(0) != 1 && static_cast<std::size_t>(noise_var.shape(0)) != nch))
        throw py::value_error("noise_var must hold 1 or " + std::to_string(nch) +
                              " values");
    b.scalar_noise = noise_var.shape(0) == 1;
    b.y = y.data();
    b.h = h.data();
    b.noise_var = noise_var.data();

    py::array_t<float> llr({ static_cast<py::ssize_t>(b.batch),
                             static_cast<py::ssize_t>(det.bits_per_vector()) });
    float* out = llr.mutable_data();
    {
        py::gil_scoped_release release;
        det.detect(b, out, threads);
    }
    return llr;
}

} // namespace

void bind_batch_detector(py::module& m)
{
    py::class_<batch_detector, std::shared_ptr<batch_detector>>(
        m,
        "batch_detector",
        "A MIMO detector on batches of numpy arrays (see gpumimo.detect).")
        .def(py::init<const std::string&,
                      const std::string&,
                      int,
                      int,
                      const core::detector_params&,
                      const std::string&,
                      int,
                      bool>(),
             py::arg("algorithm"),
             py::arg("modulation"),
             py::arg("nt"),
             py::arg("nr"),
             py::arg("params") = core::detector_params(),
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("double_precision") = false)
        .def("backend", &batch_detector::backend)
        .def("fallback_reason", &batch_detector::fallback_reason)
        .def("bits_per_vector", &batch_detector::bits_per_vector)
        .def("gpu_batches", &batch_detector::gpu_batches)
        .def("detect",
             &detect,
             py::arg("y"),
             py::arg("H"),
             py::arg("noise_var"),
             py::arg("group") = 1,
             py::arg("threads") = 0);
}
