/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The streaming MIMO-OFDM receiver's blocks: channel simulator, synchroniser, channel
 * estimator, detector, fused receiver, LLR sink (docs/frame.md).
 */
#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpumimo/frame_clock.h>
#include <gnuradio/gpumimo/fused_receiver.h>
#include <gnuradio/gpumimo/llr_sink.h>
#include <gnuradio/gpumimo/ldpc_decoder.h>
#include <gnuradio/gpumimo/mimo_chanest.h>
#include <gnuradio/gpumimo/mimo_channel.h>
#include <gnuradio/gpumimo/mimo_detector.h>
#include <gnuradio/gpumimo/mimo_ofdm_sync.h>
#include <gnuradio/gpumimo/stream_receiver.h>

#include <cmath>

namespace py = pybind11;
using namespace gr::gpumimo;

namespace {
// A Python int as a uint64_t, or ValueError naming the parameter and its range (pybind11's
// own conversion answers -1 or 2^64 with a TypeError and its signature list).
std::uint64_t checked_uint64(const py::int_& v, const char* name)
{
    const unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(std::string(name) + " must be a whole number from 0 to 2^64 - 1, not " +
                              py::repr(v).cast<std::string>());
    }
    return std::uint64_t(x);
}

// The detector blocks take a detector_spec or, for the defaults, just its name.
core::detector_spec to_detector_spec(const py::object& detector)
{
    if (py::isinstance<py::str>(detector))
        return core::detector_spec(detector.cast<std::string>());
    return detector.cast<core::detector_spec>();
}
} // namespace

void bind_receiver(py::module& m)
{
    py::class_<mimo_channel, gr::sync_block, gr::block, gr::basic_block,
               std::shared_ptr<mimo_channel>>(
        m, "mimo_channel", "Nt-to-Nr MIMO channel simulator.")
        .def(py::init(&mimo_channel::make),
             py::arg("tx"),
             py::arg("rx"),
             py::arg("tap_powers") = std::vector<double>{ 1.0 },
             py::arg("snr_db") = 30.0,
             py::arg("signal_power") = 1.0,
             py::arg("cfo") = 0.0,
             py::arg("delay") = 0,
             py::arg("seed") = 1,
             py::arg("doppler") = 0.0,
             py::arg("model") = "taps",
             py::arg("delay_spread") = 0.0,
             py::arg("sample_rate") = 0.0,
             py::arg("correlation") = "none",
             py::arg("phase_noise_var") = 0.0,
             py::arg("iq_gain_db") = 0.0,
             py::arg("iq_phase_deg") = 0.0,
             py::arg("dc_dbc") = -INFINITY)
        .def("taps", &mimo_channel::taps)
        .def("doppler", &mimo_channel::doppler)
        .def("set_snr_db", &mimo_channel::set_snr_db, py::arg("snr_db"))
        .def("set_cfo", &mimo_channel::set_cfo, py::arg("cfo"))
        .def("set_delay", &mimo_channel::set_delay, py::arg("delay"))
        .def(
            "set_seed",
            [](mimo_channel& c, const py::int_& seed) { c.set_seed(checked_uint64(seed, "seed")); },
            py::arg("seed"))
        .def("set_phase_noise_var", &mimo_channel::set_phase_noise_var, py::arg("phase_noise_var"))
        .def("set_iq_imbalance", &mimo_channel::set_iq_imbalance, py::arg("iq_gain_db"),
             py::arg("iq_phase_deg"))
        .def("set_dc_dbc", &mimo_channel::set_dc_dbc, py::arg("dc_dbc"))
        .def("phase_noise_var", &mimo_channel::phase_noise_var)
        .def("iq_gain_db", &mimo_channel::iq_gain_db)
        .def("iq_phase_deg", &mimo_channel::iq_phase_deg)
        .def("dc_dbc", &mimo_channel::dc_dbc)
        .def("snr_db", &mimo_channel::snr_db)
        .def("cfo", &mimo_channel::cfo)
        .def("delay", &mimo_channel::delay)
        .def("seed", &mimo_channel::seed)
        .def("noise_var", &mimo_channel::noise_var)
        .def("bad_samples", &mimo_channel::bad_samples)
        .def("work_failures", &mimo_channel::work_failures);

    py::class_<mimo_ofdm_sync, gr::block, gr::basic_block, std::shared_ptr<mimo_ofdm_sync>>(
        m, "mimo_ofdm_sync", "Multi-antenna frame synchroniser.")
        .def(py::init(&mimo_ofdm_sync::make),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("antennas"),
             py::arg("threshold") = 0.0,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("device_buffers") = true,
             py::arg("pilot_interval") = 0)
        .def("set_threshold", &mimo_ofdm_sync::set_threshold, py::arg("threshold"))
        .def("backend", &mimo_ofdm_sync::backend)
        .def("threshold", &mimo_ofdm_sync::threshold)
        .def("frames", &mimo_ofdm_sync::frames)
        .def("dropped_frames", &mimo_ofdm_sync::dropped_frames)
        .def("last_cfo", &mimo_ofdm_sync::last_cfo)
        .def("work_failures", &mimo_ofdm_sync::work_failures);

    py::class_<ldpc_decoder, gr::block, gr::basic_block, std::shared_ptr<ldpc_decoder>>(
        m, "ldpc_decoder", "LDPC decoding of a stream of LLRs.")
        .def(py::init(&ldpc_decoder::make),
             py::arg("code") = "wimax_2304",
             py::arg("algorithm") = "min_sum",
             py::arg("max_iterations") = 10,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("max_codewords") = 256,
             py::arg("device_buffers") = true)
        .def("codeword_bits", &ldpc_decoder::codeword_bits)
        .def("info_bits", &ldpc_decoder::info_bits)
        .def("backend", &ldpc_decoder::backend)
        .def("codewords", &ldpc_decoder::codewords)
        .def("failed_codewords", &ldpc_decoder::failed_codewords)
        .def("mean_iterations", &ldpc_decoder::mean_iterations)
        .def("work_failures", &ldpc_decoder::work_failures);

    py::class_<mimo_chanest, gr::block, gr::basic_block, std::shared_ptr<mimo_chanest>>(
        m, "mimo_chanest", "MIMO channel estimation: ls, dft or lmmse.")
        .def(py::init(&mimo_chanest::make),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("antennas"),
             py::arg("estimator") = "lmmse",
             py::arg("equalized_outputs") = false,
             py::arg("backend") = "auto",
             py::arg("device") = 0,
             py::arg("device_buffers") = true,
             py::arg("pilot_interval") = 0)
        .def("frames", &mimo_chanest::frames)
        .def("backend", &mimo_chanest::backend)
        .def("dropped_frames", &mimo_chanest::dropped_frames)
        .def("last_noise_var", &mimo_chanest::last_noise_var)
        .def("work_failures", &mimo_chanest::work_failures);

    py::class_<mimo_detector, gr::sync_interpolator, gr::sync_block, gr::block,
               gr::basic_block, std::shared_ptr<mimo_detector>>(
        m, "mimo_detector", "Soft-output MIMO-OFDM detection.")
        .def(py::init([](const std::string& preset,
                         int streams,
                         const std::string& modulation,
                         int antennas,
                         const py::object& detector,
                         const std::string& backend,
                         bool int8_output,
                         float int8_scale,
                         int device,
                         bool device_buffers,
                         int payload_symbols,
                         int pilot_interval) {
                 return mimo_detector::make(preset,
                                            streams,
                                            modulation,
                                            antennas,
                                            to_detector_spec(detector),
                                            backend,
                                            int8_output,
                                            int8_scale,
                                            device,
                                            device_buffers,
                                            payload_symbols,
                                            pilot_interval);
             }),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("antennas"),
             py::arg("detector") = "mmse",
             py::arg("backend") = "auto",
             py::arg("int8_output") = false,
             py::arg("int8_scale") = 8.0f,
             py::arg("device") = 0,
             py::arg("device_buffers") = true,
             py::arg("payload_symbols") = 0,
             py::arg("pilot_interval") = 0)
        .def("detector", &mimo_detector::detector)
        .def(
            "set_detector",
            [](mimo_detector& b, const py::object& d) { b.set_detector(to_detector_spec(d)); },
            py::arg("detector"))
        .def("bits_per_symbol", &mimo_detector::bits_per_symbol)
        .def("backend", &mimo_detector::backend)
        .def("symbols", &mimo_detector::symbols)
        .def("erased_symbols", &mimo_detector::erased_symbols)
        .def("search_budget_hits", &mimo_detector::search_budget_hits)
        .def("work_failures", &mimo_detector::work_failures);

    py::class_<fused_receiver, gr::block, gr::basic_block, std::shared_ptr<fused_receiver>>(
        m, "fused_receiver",
        "OFDM FFT, channel estimation and detection of whole frames on one GPU.")
        .def(py::init([](const std::string& preset,
                         int streams,
                         const std::string& modulation,
                         int payload_symbols,
                         int antennas,
                         const py::object& detector,
                         const std::string& backend,
                         bool int8_output,
                         float int8_scale,
                         int device,
                         const std::string& estimator,
                         const std::string& code,
                         int pilot_interval) {
                 return fused_receiver::make(preset,
                                             streams,
                                             modulation,
                                             payload_symbols,
                                             antennas,
                                             to_detector_spec(detector),
                                             backend,
                                             int8_output,
                                             int8_scale,
                                             device,
                                             estimator,
                                             code,
                                             pilot_interval);
             }),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("antennas"),
             py::arg("detector") = "mmse",
             py::arg("backend") = "auto",
             py::arg("int8_output") = false,
             py::arg("int8_scale") = 8.0f,
             py::arg("device") = 0,
             py::arg("estimator") = "lmmse",
             py::arg("code") = "",
             py::arg("pilot_interval") = 0)
        .def("detector", &fused_receiver::detector)
        .def(
            "set_detector",
            [](fused_receiver& b, const py::object& d) { b.set_detector(to_detector_spec(d)); },
            py::arg("detector"))
        .def("payload_bits", &fused_receiver::payload_bits)
        .def("info_bits", &fused_receiver::info_bits)
        .def("codewords", &fused_receiver::codewords)
        .def("codeword_errors", &fused_receiver::codeword_errors)
        .def("mean_iterations", &fused_receiver::mean_iterations)
        .def("raw_ber", &fused_receiver::raw_ber)
        .def("backend", &fused_receiver::backend)
        .def("frames", &fused_receiver::frames)
        .def("damaged_frames", &fused_receiver::damaged_frames)
        .def("unusable_estimates", &fused_receiver::unusable_estimates)
        .def("last_noise_var", &fused_receiver::last_noise_var)
        .def("work_failures", &fused_receiver::work_failures);

    py::class_<stream_receiver, gr::block, gr::basic_block, std::shared_ptr<stream_receiver>>(
        m, "stream_receiver",
        "Synchronisation, OFDM FFT, channel estimation and detection in one block, the "
        "frames kept on the GPU.")
        .def(py::init([](const std::string& preset,
                         int streams,
                         const std::string& modulation,
                         int payload_symbols,
                         int antennas,
                         const py::object& detector,
                         const std::string& backend,
                         bool int8_output,
                         float int8_scale,
                         int device,
                         const std::string& estimator,
                         double threshold,
                         int pilot_interval) {
                 return stream_receiver::make(preset,
                                              streams,
                                              modulation,
                                              payload_symbols,
                                              antennas,
                                              to_detector_spec(detector),
                                              backend,
                                              int8_output,
                                              int8_scale,
                                              device,
                                              estimator,
                                              threshold,
                                              pilot_interval);
             }),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("antennas"),
             py::arg("detector") = "mmse",
             py::arg("backend") = "auto",
             py::arg("int8_output") = false,
             py::arg("int8_scale") = 8.0f,
             py::arg("device") = 0,
             py::arg("estimator") = "lmmse",
             py::arg("threshold") = 0.0,
             py::arg("pilot_interval") = 0)
        .def("detector", &stream_receiver::detector)
        .def(
            "set_detector",
            [](stream_receiver& b, const py::object& d) { b.set_detector(to_detector_spec(d)); },
            py::arg("detector"))
        .def("set_threshold", &stream_receiver::set_threshold, py::arg("threshold"))
        .def("threshold", &stream_receiver::threshold)
        .def("payload_bits", &stream_receiver::payload_bits)
        .def("backend", &stream_receiver::backend)
        .def("frames", &stream_receiver::frames)
        .def("dropped_frames", &stream_receiver::dropped_frames)
        .def("damaged_frames", &stream_receiver::damaged_frames)
        .def("unusable_estimates", &stream_receiver::unusable_estimates)
        .def("last_cfo", &stream_receiver::last_cfo)
        .def("last_noise_var", &stream_receiver::last_noise_var)
        .def("work_failures", &stream_receiver::work_failures);

    py::class_<frame_clock, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<frame_clock>>(
        m, "frame_clock", "A time per whole frame read, for latencies.")
        .def(py::init(&frame_clock::make),
             py::arg("itemsize"),
             py::arg("items_per_frame"),
             py::arg("capacity") = 65536)
        .def("frames", &frame_clock::frames)
        .def("times", &frame_clock::times)
        .def_static("now", &frame_clock::now);

    py::class_<llr_sink, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<llr_sink>>(
        m, "llr_sink", "LLR file, error counting and statistics.")
        .def(py::init(&llr_sink::make),
             py::arg("preset"),
             py::arg("streams"),
             py::arg("modulation"),
             py::arg("payload_symbols"),
             py::arg("int8_input") = false,
             py::arg("int8_scale") = 8.0f,
             py::arg("filename") = "",
             py::arg("prbs_seed") = 1,
             py::arg("report_every") = 0,
             py::arg("reference_file") = "",
             py::arg("code") = "",
             py::arg("decoded_input") = false)
        .def("frame_bits", &llr_sink::frame_bits)
        .def("info_bits", &llr_sink::info_bits)
        .def("codewords", &llr_sink::codewords)
        .def("codeword_errors", &llr_sink::codeword_errors)
        .def("mean_iterations", &llr_sink::mean_iterations)
        .def("raw_bits", &llr_sink::raw_bits)
        .def("raw_bit_errors", &llr_sink::raw_bit_errors)
        .def("raw_ber", &llr_sink::raw_ber)
        .def("decoder_backend", &llr_sink::decoder_backend)
        .def("frames", &llr_sink::frames)
        .def("partial_frames", &llr_sink::partial_frames)
        .def("bits", &llr_sink::bits)
        .def("bit_errors", &llr_sink::bit_errors)
        .def("frame_errors", &llr_sink::frame_errors)
        .def("ber", &llr_sink::ber)
        .def("fer", &llr_sink::fer)
        .def("resynchronisations", &llr_sink::resynchronisations)
        .def("unsynchronised_frames", &llr_sink::unsynchronised_frames)
        .def("llrs", &llr_sink::llrs)
        .def("mean_abs_llr", &llr_sink::mean_abs_llr)
        .def("zero_llrs", &llr_sink::zero_llrs)
        .def("non_finite_llrs", &llr_sink::non_finite_llrs)
        .def("llr_rate", &llr_sink::llr_rate)
        .def("stats", &llr_sink::stats)
        .def("reset_counters", &llr_sink::reset_counters)
        .def("work_failures", &llr_sink::work_failures);
}
