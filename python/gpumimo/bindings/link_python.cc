/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bindings of the coded link: the LDPC code, encoder and decoders, and the link
 * simulator (gpumimo.link_simulate and gpumimo.ldpc in link.py wrap them).
 */
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/nr_ldpc.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <memory>

namespace py = pybind11;
using namespace gr::gpumimo;

namespace {

using u8_array = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;
using f32_array = py::array_t<float, py::array::c_style | py::array::forcecast>;

// A 2-d (frames, width) view of a 1-d or 2-d array; ValueError for other shapes.
std::size_t frames_of(const py::buffer_info& b, int width, const char* what)
{
    if (b.ndim == 1 && b.shape[0] == width)
        return 1;
    if (b.ndim == 2 && b.shape[1] == width)
        return std::size_t(b.shape[0]);
    throw py::value_error(std::string(what) + " must have shape (" + std::to_string(width) +
                          ",) or (frames, " + std::to_string(width) + ")");
}

// Bits given in any numeric dtype, as uint8; ValueError naming the first value that is
// not exactly 0 or 1 (2, -1, 0.5 and NaN among them: a cast to uint8 would wrap or
// truncate them into bits silently).
u8_array bit_array(const py::array& a, const char* what)
{
    const py::module_ np = py::module_::import("numpy");
    const py::array ok = np.attr("isin")(a, py::make_tuple(0, 1));
    if (!ok.attr("all")().cast<bool>()) {
        const py::object flat = np.attr("ravel")(a);
        const py::ssize_t first = np.attr("argmin")(np.attr("ravel")(ok)).cast<py::ssize_t>();
        throw py::value_error(std::string(what) + "[" + std::to_string(first) + "] is " +
                              py::repr(flat[py::int_(first)]).cast<std::string>() +
                              ": bits must be 0 or 1");
    }
    return u8_array::ensure(a);
}

py::dict point_dict(const core::link_point& p)
{
    py::dict d;
    d["snr_db"] = p.snr_db;
    d["ebn0_db"] = p.ebn0_db;
    d["frames"] = p.counts.frames;
    d["frame_errors"] = p.counts.frame_errors;
    d["info_bits"] = p.counts.info_bits;
    d["bit_errors"] = p.counts.bit_errors;
    d["coded_bits"] = p.counts.coded_bits;
    d["raw_bit_errors"] = p.counts.raw_bit_errors;
    d["fer"] = p.fer();
    d["ber"] = p.ber();
    d["raw_ber"] = p.raw_ber();
    d["mean_iterations"] = p.mean_iterations();
    d["seconds"] = p.seconds;
    return d;
}

} // namespace

void bind_link(py::module& m)
{
    py::class_<core::ldpc_code>(m, "ldpc_code", "A binary LDPC code (core::ldpc_code).")
        .def_readonly("name", &core::ldpc_code::name)
        .def_readonly("n", &core::ldpc_code::n)
        .def_readonly("m", &core::ldpc_code::m)
        .def_readonly("checks", &core::ldpc_code::checks)
        .def("satisfied",
             [](const core::ldpc_code& c, u8_array bits) {
                 if (bits.ndim() != 1 || bits.shape(0) != c.n)
                     throw py::value_error("bits must have shape (n,)");
                 return c.satisfied(bits.data());
             });
    m.def("wimax_rate_half_code", &core::wimax_rate_half_code, py::arg("n") = 2304,
          "The 802.16e rate-1/2 code of length n = 576..2304 (step 96).");
    m.def("load_alist", &core::load_alist, py::arg("path"), "An LDPC code from an alist file.");
    m.def("nr_ldpc_code", &core::nr_ldpc_code, py::arg("graph"), py::arg("z"), py::arg("rows") = 0,
          "A 5G NR LDPC code (38.212): base graph 1 or 2 lifted by z (one of the 51 lifting "
          "sizes), its first `rows` block rows (0: all).");
    m.def("nr_lifting_sizes", &core::nr_lifting_sizes, "The 51 lifting sizes of 38.212.");
    m.def("ldpc_code_by_name", &core::ldpc_code_by_name, py::arg("name"),
          "A code by name, as the blocks take it: wimax_<n>, nr_bg<g>_z<Z>[_rows<r>] or an "
          "alist path.");

    py::class_<core::ldpc_encoder>(m, "ldpc_encoder", "Systematic encoder for any H.")
        .def(py::init<const core::ldpc_code&>(), py::arg("code"))
        .def_property_readonly("n", &core::ldpc_encoder::n)
        .def_property_readonly("k", &core::ldpc_encoder::k)
        .def_property_readonly("info_positions", &core::ldpc_encoder::info_positions)
        .def(
            "encode",
            [](const core::ldpc_encoder& e, const py::array& given) {
                const u8_array info = bit_array(given, "info");
                const py::buffer_info b = info.request();
                const std::size_t frames = frames_of(b, e.k(), "info");
                py::array_t<std::uint8_t> out(b.ndim == 1 ? std::vector<py::ssize_t>{ e.n() }
                                                          : std::vector<py::ssize_t>{ py::ssize_t(frames), e.n() });
                for (std::size_t f = 0; f < frames; f++)
                    e.encode(info.data() + f * e.k(), out.mutable_data() + f * e.n());
                return out;
            },
            py::arg("info"), "Codewords (frames, n) of information bits (frames, k).");

    // decode(llr) for either decoder: (bits, iterations, satisfied).
    auto decode = [](auto& decoder, int n, f32_array llr) {
        const py::buffer_info b = llr.request();
        const std::size_t frames = frames_of(b, n, "llr");
        py::array_t<std::uint8_t> bits(b.shape);
        py::array_t<int> iterations{ py::ssize_t(frames) };
        py::array_t<std::uint8_t> satisfied{ py::ssize_t(frames) };
        core::ldpc_outputs out;
        out.bits = bits.mutable_data();
        out.iterations = iterations.mutable_data();
        out.satisfied = satisfied.mutable_data();
        {
            py::gil_scoped_release release;
            decoder.decode(llr.data(), frames, out);
        }
        return py::make_tuple(bits, iterations, satisfied);
    };
    py::class_<core::ldpc_decoder_config>(m, "ldpc_decoder_config")
        .def(py::init<>())
        .def_property(
            "algorithm",
            [](const core::ldpc_decoder_config& c) { return std::string(core::to_string(c.algorithm)); },
            [](core::ldpc_decoder_config& c, const std::string& s) {
                c.algorithm = core::ldpc_algorithm_from_string(s);
            })
        .def_readwrite("max_iterations", &core::ldpc_decoder_config::max_iterations)
        .def_readwrite("early_termination", &core::ldpc_decoder_config::early_termination)
        .def_readwrite("normalisation", &core::ldpc_decoder_config::normalisation)
        .def_readwrite("offset", &core::ldpc_decoder_config::offset);
    py::class_<core::cpu_ldpc_decoder>(m, "cpu_ldpc_decoder")
        .def(py::init([](const core::ldpc_code& code, const core::ldpc_decoder_config& cfg) {
                 cfg.validate();
                 return std::make_unique<core::cpu_ldpc_decoder>(code, cfg);
             }),
             py::arg("code"), py::arg("config"))
        .def("decode", [decode](core::cpu_ldpc_decoder& d, f32_array llr) {
            return decode(d, d.code().n, llr);
        });
    // The decoder on the backend asked for (core::make_ldpc_decoder_engine).
    // (gpumimo.ldpc_decoder is the GNU Radio block.)
    py::class_<core::ldpc_decoder_engine>(m, "ldpc_decoder_engine")
        .def(py::init([](const core::ldpc_code& code,
                         const core::ldpc_decoder_config& cfg,
                         const std::string& backend,
                         std::size_t max_frames,
                         int device) {
                 core::ldpc_engine_config c;
                 c.decoder = cfg;
                 c.max_frames = max_frames;
                 c.device = device;
                 return core::make_ldpc_decoder_engine(code, c, backend);
             }),
             py::arg("code"),
             py::arg("config"),
             py::arg("backend") = "auto",
             py::arg("max_frames") = 4096,
             py::arg("device") = 0)
        .def("backend", [](const core::ldpc_decoder_engine& d) { return std::string(d.backend()); })
        .def("decode", [decode](core::ldpc_decoder_engine& d, f32_array llr) {
            return decode(d, d.codeword_bits(), llr);
        });

    m.def(
        "_link_simulate",
        [](const std::vector<double>& snr_db, int nt, int nr, const std::string& modulation,
           const std::string& algorithm, const core::detector_params& params,
           const std::string& channel, int coherence, const std::vector<double>& taps,
           int fft_len, py::object code, int uncoded_frame_bits,
           const core::ldpc_decoder_config& decoder, bool interleave,
           std::uint64_t frame_errors, std::uint64_t max_frames, const std::string& backend,
           int device, unsigned threads, std::uint64_t seed, py::object progress) {
            core::link_config c;
            c.nt = nt;
            c.nr = nr;
            c.mod = core::parse_modulation(modulation);
            c.algo = core::parse_algorithm(algorithm);
            c.detector = params;
            c.channel = core::parse_link_channel(channel);
            c.coherence_vectors = coherence;
            c.tap_powers = taps;
            c.tdl_fft_len = fft_len;
            c.code = code.is_none() ? core::ldpc_code() : code.cast<core::ldpc_code>();
            c.uncoded_frame_bits = uncoded_frame_bits;
            c.decoder = decoder;
            c.interleave = interleave;
            c.target_frame_errors = frame_errors;
            c.max_frames = max_frames;
            c.backend = backend;
            c.device = device;
            c.threads = threads;
            c.seed = seed;
            std::vector<core::link_point> points;
            std::string used, fallback;
            {
                py::gil_scoped_release release;
                core::link_simulator sim(c);
                used = sim.backend();
                fallback = sim.fallback_reason();
                auto report = [&](const core::link_point& p) {
                    py::gil_scoped_acquire acquire;
                    if (PyErr_CheckSignals() != 0) // Ctrl-C ends the run
                        throw py::error_already_set();
                    if (!progress.is_none())
                        progress(point_dict(p));
                };
                for (std::size_t i = 0; i < snr_db.size(); i++)
                    points.push_back(sim.run_point(std::uint32_t(i), snr_db[i], report));
            }
            py::list out;
            for (const auto& p : points)
                out.append(point_dict(p));
            return py::make_tuple(out, used, fallback);
        });
}
