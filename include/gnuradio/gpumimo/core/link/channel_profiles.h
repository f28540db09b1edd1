/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_CHANNEL_PROFILES_H
#define INCLUDED_GPUMIMO_CORE_CHANNEL_PROFILES_H

#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! One propagation path of a tapped-delay-line model: its delay in samples (any real
 *  number >= 0, not rounded), its mean power (linear), and whether it is the
 *  line-of-sight (specular, Ricean) component rather than Rayleigh faded. */
struct channel_path {
    double delay = 0;
    double power = 0;
    bool los = false;
};

/*! "tdl-a" .. "tdl-e": the TDL models of 3GPP TR 38.901 Table 7.7.2-1 .. 7.7.2-5. */
std::vector<std::string> tdl_model_names();
bool is_tdl_model(const std::string& model);

/*!
 * \brief The paths of a TR 38.901 TDL model (Tables 7.7.2-1 .. 7.7.2-5): the tables'
 * normalised delays times delay_spread (seconds) times sample_rate (Hz), their powers
 * (dB in the tables) normalised to a sum of 1. TDL-D and TDL-E start with a LOS path
 * and a Rayleigh path at delay 0; k_factor_db, when finite, rescales the LOS path to
 * that K-factor against the Rayleigh path beside it (TR 38.901 7.7.6: the tables' own
 * are 13.3 dB and 22 dB) before the normalisation. std::invalid_argument for an unknown
 * name, a delay spread or sample rate not finite and > 0, or a K-factor on an NLOS model.
 */
std::vector<channel_path> tdl_paths(const std::string& model,
                                    double delay_spread,
                                    double sample_rate,
                                    double k_factor_db);

/*! The RMS delay spread of paths, in the paths' delay unit (sqrt of the power-weighted
 *  second central moment of the delays). */
double rms_delay_spread(const std::vector<channel_path>& paths);

/*!
 * \brief The antenna correlation matrix of 3GPP TS 36.101 Annex B.2.3.1 / TS 38.101-4
 * Annex B.2.2 for n antennas of a uniform array: R[i][j] = a^(((i - j) / (n - 1))^2),
 * a the correlation between the end elements (alpha at the base station, beta at the
 * UE), row-major, real. a in [0, 1).
 */
std::vector<double> antenna_correlation(int n, double a);

/*! The (alpha, beta) pairs of TS 36.101 Table B.2.3.1-1 / TS 38.101-4 Table B.2.2.1-1
 *  by name: "none" or "low" (0, 0), "medium" (0.3, 0.9), "medium-a" (0.3, 0.3), "high"
 *  (0.9, 0.9). alpha is the base station's (our receive side), beta the UE's (transmit
 *  side). std::invalid_argument naming the choices otherwise. */
struct correlation_level {
    double alpha = 0, beta = 0;
};
correlation_level parse_correlation_level(const std::string& name);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
