/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM detector block and the frame demultiplexer before it (the live chain), and
 * the core's APSM reference, frame layout and recording reader on numpy arrays (to
 * check the blocks against, and to replay the over-the-air recordings).
 */
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/apsm_detector.h>
#include <gnuradio/gpumimo/apsm_frame_demux.h>
#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_frame.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>

#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpumimo;
using cf = std::complex<float>;
using carray = py::array_t<cf, py::array::c_style | py::array::forcecast>;

namespace {

core::apsm_params params_from(py::dict kw)
{
    core::apsm_params p;
    for (auto item : kw) {
        const std::string k = py::str(item.first);
        const py::handle v = item.second;
        if (k == "window")
            p.window = v.cast<int>();
        else if (k == "gaussian_variance")
            p.gaussian_variance = v.cast<float>();
        else if (k == "linear_weight")
            p.linear_weight = v.cast<float>();
        else if (k == "gaussian_weight")
            p.gaussian_weight = v.cast<float>();
        else if (k == "epsilon")
            p.epsilon = v.cast<float>();
        else if (k == "dictionary_size")
            p.dictionary_size = v.cast<int>();
        else if (k == "sample_step")
            p.sample_step = v.cast<int>();
        else if (k == "passes")
            p.passes = v.cast<int>();
        else if (k == "ls_init")
            p.ls_init = v.cast<bool>();
        else if (k == "normalize_input")
            p.normalize_input = v.cast<bool>();
        else if (k == "ls_guard")
            p.ls_guard = v.cast<bool>();
        else
            throw std::invalid_argument("unknown APSM parameter '" + k + "'");
    }
    return p;
}

py::array_t<cf> complex_matrix(const std::vector<cf>& v, std::size_t rows, std::size_t cols)
{
    py::array_t<cf> a({ rows, cols });
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

} // namespace

void bind_apsm_detector(py::module& m)
{
    py::class_<apsm_detector, gr::sync_block, gr::block, gr::basic_block,
               std::shared_ptr<apsm_detector>>(
        m,
        "apsm_detector",
        "APSM multiuser detector: trained on pilots (tag or message), then soft symbols "
        "and LLRs for every user, on a GPU or the CPU.")
        .def(py::init(&apsm_detector::make),
             py::arg("antennas"),
             py::arg("users"),
             py::arg("modulation"),
             py::arg("pilots") = std::vector<gr_complex>(),
             py::arg("training_len") = 0,
             py::arg("pilot_file") = "",
             py::arg("training_tag") = "apsm_train",
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("window") = 20,
             py::arg("gaussian_variance") = 0.02f,
             py::arg("linear_weight") = 0.01f,
             py::arg("gaussian_weight") = 1.0f,
             py::arg("epsilon") = 0.1f,
             py::arg("dictionary_size") = 685,
             py::arg("sample_step") = 2,
             py::arg("passes") = 1,
             py::arg("ls_init") = true,
             py::arg("normalize_input") = true,
             py::arg("antenna_subset") = std::vector<int>(),
             py::arg("ls_guard") = true,
             py::arg("track") = false,
             py::arg("max_training") = 0)
        .def("backend", &apsm_detector::backend)
        .def("training_len", &apsm_detector::training_len)
        .def("training_used", &apsm_detector::training_used)
        .def("trainings", &apsm_detector::trainings)
        .def("failed_trainings", &apsm_detector::failed_trainings)
        .def("detected", &apsm_detector::detected)
        .def("untrained", &apsm_detector::untrained)
        .def("erased", &apsm_detector::erased)
        .def("noise_variances", &apsm_detector::noise_variances)
        .def("last_training_ms", &apsm_detector::last_training_ms)
        .def("work_failures", &apsm_detector::work_failures);

    py::class_<apsm_frame_demux, gr::block, gr::basic_block, std::shared_ptr<apsm_frame_demux>>(
        m,
        "apsm_frame_demux",
        "mimo_ofdm_tx's frames (ofdm_fft's symbols) as apsm_detector takes them: per frame "
        "the users' pilot REs (training, tagged where a training is due), then the payload's "
        "data REs.")
        .def(py::init(&apsm_frame_demux::make),
             py::arg("preset"),
             py::arg("users"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("antennas"),
             py::arg("train_every") = 0,
             py::arg("training_tag") = "apsm_train")
        .def("training_len", &apsm_frame_demux::training_len)
        .def("data_len", &apsm_frame_demux::data_len)
        .def("frames", &apsm_frame_demux::frames)
        .def("trainings_tagged", &apsm_frame_demux::trainings_tagged)
        .def("dropped_symbols", &apsm_frame_demux::dropped_symbols)
        .def("damaged_frames", &apsm_frame_demux::damaged_frames);

    m.def(
        "apsm_frame_training",
        [](const std::string& preset, int users, const std::string& modulation, int payload_symbols) {
            const core::apsm_frame_layout layout(
                core::make_frame_format(preset, users, modulation, payload_symbols));
            return complex_matrix(layout.training_symbols(), std::size_t(users), layout.training_len());
        },
        py::arg("preset"),
        py::arg("users"),
        py::arg("modulation"),
        py::arg("payload_symbols"),
        "What the users of mimo_ofdm_tx's frame (one a stream) send on apsm_frame_demux's "
        "training REs, [users, training_len]: apsm_detector's pilots.");

    m.def(
        "apsm_reference",
        [](carray rx_train, carray sent, carray rx, const std::string& modulation, py::kwargs kw) {
            // The CPU reference: every user trained, then soft symbols and LLRs.
            if (rx_train.ndim() != 2 || sent.ndim() != 2 || rx.ndim() != 2 ||
                sent.shape(1) != rx_train.shape(0) || rx.shape(1) != rx_train.shape(1))
                throw std::invalid_argument("apsm_reference: rx_train [n, antennas], sent "
                                            "[users, n], rx [symbols, antennas]");
            // track: detection by apsm_track (the filters follow the data), not a parameter
            // of core::apsm_params.
            const bool track = kw.contains("track") && kw["track"].cast<bool>();
            if (kw.contains("track"))
                PyDict_DelItemString(kw.ptr(), "track");
            const core::apsm_params p = params_from(kw);
            const core::constellation c(core::parse_modulation(modulation));
            const std::size_t n = rx_train.shape(0), M = rx_train.shape(1),
                              K = sent.shape(0), N = rx.shape(0);
            const int bits = c.bits_per_symbol();
            py::array_t<cf> soft({ K, N });
            py::array_t<float> llr({ K, N * bits });
            std::vector<double> noise;
            // Every user at once: the least-squares guard (on unless ls_guard=False)
            // decides user by user on a held-out quarter of the pilots, as the block.
            const std::vector<core::apsm_filter> filters = core::apsm_train_guarded(
                p, rx_train.data(), n, int(M), int(K), sent.data());
            for (std::size_t u = 0; u < K; u++) {
                core::apsm_filter f = filters[u];
                if (track)
                    core::apsm_track(p, c, f, rx.data(), N, soft.mutable_data() + u * N);
                else
                    core::apsm_detect(f, rx.data(), N, soft.mutable_data() + u * N);
                core::soft_to_llr(c, soft.data() + u * N, N, f.noise_variance,
                                  llr.mutable_data() + u * N * bits);
                noise.push_back(f.noise_variance);
            }
            return py::make_tuple(soft, llr, noise);
        },
        py::arg("rx_train"),
        py::arg("sent"),
        py::arg("rx"),
        py::arg("modulation"),
        "(soft [users, symbols], llr [users, symbols x bits], noise variances): the CPU "
        "reference of the APSM detector, parameters as the block's keyword arguments "
        "(the least-squares guard included: ls_guard=False leaves it out; track=True detects "
        "with the filters following the data, as the block's track).");

    m.def(
        "load_apsm_recording",
        [](const std::string& rx_path, const std::string& tx_path) {
            const core::apsm_recording r = core::load_apsm_recording(rx_path, tx_path);
            py::dict d;
            d["modulation"] = core::to_string(r.mod);
            d["antennas"] = r.antennas;
            d["user_slots"] = r.user_slots;
            d["rx_training"] = complex_matrix(r.rx_training, r.training_symbols, r.antennas);
            d["rx_data"] = complex_matrix(r.rx_data, r.data_symbols, r.antennas);
            std::vector<cf> st, sd;
            for (int u = 0; u < r.users(); u++) {
                st.insert(st.end(), r.sent_training[u].begin(), r.sent_training[u].end());
                sd.insert(sd.end(), r.sent_data[u].begin(), r.sent_data[u].end());
            }
            d["sent_training"] = complex_matrix(st, r.users(), r.training_symbols);
            d["sent_data"] = complex_matrix(sd, r.users(), r.data_symbols);
            return d;
        },
        py::arg("rx_path"),
        py::arg("tx_path"),
        "An over-the-air recording of examples/recordings/apsm-ota (its README): a dict of "
        "modulation, antennas, user_slots, rx_training [n, antennas], rx_data, "
        "sent_training [users, n] and sent_data, symbols on the unit-energy constellation.");
}
