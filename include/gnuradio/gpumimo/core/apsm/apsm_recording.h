/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_RECORDING_H
#define INCLUDED_GPUMIMO_CORE_APSM_RECORDING_H

#include <gnuradio/gpumimo/core/constellation.h>

#include <complex>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! One named array of the container format: dimensions and float32 data, row-major. */
struct named_array {
    std::vector<int> dims;
    std::vector<float> data;
};

/*!
 * Reads the container format of the APSM over-the-air recordings
 * (examples/recordings/apsm-ota/README.md; the public libapsm's binary files): int32 K; K times (int32
 * length, name bytes); per key in that order, int32 D, D int32 dimensions, float32 data.
 * Little-endian. A truncated, oversized or inconsistent file throws std::runtime_error
 * naming the file and what is wrong; nothing is returned partly read.
 */
std::map<std::string, named_array> read_array_container(const std::string& path);
/*! The same on bytes in memory; `label` names them in errors (what the fuzz harness in
 *  tests/fuzz drives). */
std::map<std::string, named_array> parse_array_container(std::vector<char> bytes,
                                                         const std::string& label);

/*! A recording pair (received and sent), on the unit-energy constellation. */
struct apsm_recording {
    modulation mod = modulation::qpsk;
    int antennas = 0;
    std::size_t training_symbols = 0;
    std::size_t data_symbols = 0; //!< received and sent both (the shorter of the two)
    /*! symbol x antenna, row-major */
    std::vector<std::complex<float>> rx_training, rx_data;
    /*! per active user (slots that are not all zero, in slot order) */
    std::vector<int> user_slots;
    std::vector<std::vector<std::complex<float>>> sent_training, sent_data;

    int users() const { return int(user_slots.size()); }
};

/*!
 * Loads a received file (keys rxSigTraining, rxSigData: [symbols, antennas, 2]) and the
 * sent file (mod_training, mod_data: [symbols, slots, 2], odd-integer QAM coordinates).
 * The modulation is read from the sent symbols (largest coordinate 1: QPSK, or BPSK where
 * every imaginary part is 0; 3: 16-QAM, 7: 64-QAM, 15: 256-QAM, 31: 1024-QAM) and they
 * are put on the unit-energy constellation (BPSK's real +-1 turned onto 38.211's
 * diagonal). Sent symbols off the odd-integer grid, an active user's symbol with a zero
 * coordinate, non-finite received samples, missing keys or mismatched shapes throw
 * std::runtime_error naming the file.
 */
apsm_recording load_apsm_recording(const std::string& rx_path, const std::string& tx_path);
/*! The same from containers already read (labels name them in errors). */
apsm_recording apsm_recording_from(const std::map<std::string, named_array>& rx,
                                   const std::map<std::string, named_array>& tx,
                                   const std::string& rx_label,
                                   const std::string& tx_label);

/*! The antennas (ascending indices into 0..total-1) a subset of n takes: "first" the
 *  first n ports; "equidistant" n ports spread evenly over the array, port floor(i total
 *  / n) for i = 0..n-1 (every radio of the 4 N310s gets its share). std::invalid_argument
 *  unless 1 <= n <= total and kind is one of those. */
std::vector<int> antenna_subset(const std::string& kind, int n, int total);
/*! The recording with only the given antennas' received samples (distinct indices into
 *  0..r.antennas-1, in the order given); std::invalid_argument otherwise. */
apsm_recording select_antennas(const apsm_recording& r, const std::vector<int>& antennas);

/*! One recording pair of examples/recordings/apsm-ota (its README). */
struct apsm_ota_file {
    std::string name; //!< "QPSK ofdm", "QAM16 ofdm", "QPSK time", "QAM16 time"
    std::string rx_path, tx_path;
};
/*! The four recordings under dir (the apsm-ota folder), in the order above. */
std::vector<apsm_ota_file> apsm_ota_files(const std::string& dir);

/*! Errors of n soft symbols against the sent ones: nearest-point symbol and bit errors
 *  (hard_symbols, the constellation's labels) and the library's symbol error count
 *  (libapsm_counts_symbol_error). */
struct symbol_errors {
    std::size_t symbols = 0, bits = 0, libapsm_symbols = 0;
};
symbol_errors count_symbol_errors(const constellation& c,
                                  const std::complex<float>* soft,
                                  const std::complex<float>* sent,
                                  std::size_t n);

/*!
 * The public library's symbol error test (its cli printSymbolErrors), kept only to
 * compare with its published figures: a component is wrong when it is more than half a
 * level spacing off, unless beyond the outermost level on the sent symbol's side; for
 * the quadrature part the library tests the sent level the other way round, so there an
 * overshoot past an outer point counts as an error and one from an inner point does
 * not. gr-gpumimo's own SER is nearest-point (hard_symbols).
 */
bool libapsm_counts_symbol_error(std::complex<float> soft,
                                 std::complex<float> sent,
                                 const constellation& c);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
