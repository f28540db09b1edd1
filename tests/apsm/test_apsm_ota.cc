/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * APSM on the real over-the-air recordings (examples/recordings/apsm-ota: 6 users, 16
 * N310 ports): the public library's defaults give the library's published symbol error
 * rates, and gr-gpumimo's defaults are at least as good as least squares for every user
 * on every file (the recordings: apsm/ota_recordings.h).
 */
#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>

#include "apsm/ota_recordings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gr::gpumimo::core;
using gpumimo_test::apsm_ota_dir;
using gpumimo_test::load_apsm_ota;

namespace {

// Per user: the symbol errors of the trained filters on the data symbols. APSM through
// apsm_train_guarded, as the engines train: the least-squares guard where p has it on
// (the defaults), plain apsm_train per user where not (the library's defaults).
std::vector<symbol_errors>
count_errors(const apsm_recording& rec, bool use_ls, const apsm_params& p)
{
    const constellation c(rec.mod);
    std::vector<symbol_errors> e;
    std::vector<std::complex<float>> soft(rec.data_symbols), sent;
    for (int u = 0; u < rec.users(); u++)
        sent.insert(sent.end(), rec.sent_training[u].begin(), rec.sent_training[u].end());
    const std::vector<apsm_filter> apsm =
        use_ls ? std::vector<apsm_filter>()
               : apsm_train_guarded(p, rec.rx_training.data(), rec.training_symbols,
                                    rec.antennas, rec.users(), sent.data());
    for (int u = 0; u < rec.users(); u++) {
        const apsm_filter f =
            use_ls ? ls_train(rec.rx_training.data(), rec.training_symbols, rec.antennas,
                              rec.sent_training[u].data())
                   : apsm[u];
        apsm_detect(f, rec.rx_data.data(), rec.data_symbols, soft.data());
        e.push_back(count_symbol_errors(
            c, soft.data(), rec.sent_data[u].data(), rec.data_symbols));
    }
    return e;
}

// The (published) SER in percent, users 0..5, of the library on an H200, in the
// order of apsm_ota_files: QPSK ofdm, 16-QAM ofdm, QPSK time, 16-QAM time.
const double library_apsm_ser[4][6] = {
    { 0, 0, 0, 0, 0, 0.052 },
    { 0, 0.10, 0, 4.51, 0, 71.1 },
    { 0.026, 0, 0.026, 0.026, 0, 0.026 },
    { 0.052, 1.22, 0.078, 0.86, 32.2, 14.8 },
};

} // namespace

TEST(ApsmOverTheAir, LibraryDefaultsReproduceThePublishedErrorRates)
{
    // Scored as the library scores (libapsm_counts_symbol_error). The published rates
    // are rounded (two or three digits): a count within 2 symbols of rate x symbols, or
    // within 1% of it for the rates in the tens of percent, matches. Our float training
    // differs from the library's GPU float arithmetic in summation order only; on the
    // development machine every count came out equal to the published one.
    const std::vector<apsm_ota_file> files = apsm_ota_files(apsm_ota_dir());
    for (int i = 0; i < 4; i++) {
        apsm_recording rec;
        if (!load_apsm_ota(files[i], rec))
            GTEST_SKIP() << "recordings absent (GPUMIMO_ALLOW_MISSING_DATA=1)";
        ASSERT_EQ(rec.users(), 6);
        const auto e = count_errors(rec, false, apsm_params::library_defaults());
        for (int u = 0; u < 6; u++) {
            const double published = library_apsm_ser[i][u] / 100 * rec.data_symbols;
            const double margin = std::max(2.0, 0.01 * published);
            EXPECT_NEAR(double(e[u].libapsm_symbols), published, margin)
                << files[i].name << ", user " << u << ": " << e[u].libapsm_symbols
                << " symbol errors, the library's " << library_apsm_ser[i][u] << "% is "
                << published;
        }
    }
}

TEST(ApsmOverTheAir, DefaultsAreAtLeastAsGoodAsLeastSquaresForEveryUser)
{
    // Nearest-point symbol errors; no margin: the claim is "at least as good".
    for (const apsm_ota_file& f : apsm_ota_files(apsm_ota_dir())) {
        apsm_recording rec;
        if (!load_apsm_ota(f, rec))
            GTEST_SKIP() << "recordings absent (GPUMIMO_ALLOW_MISSING_DATA=1)";
        const auto ls = count_errors(rec, true, apsm_params());
        const auto apsm = count_errors(rec, false, apsm_params());
        for (int u = 0; u < rec.users(); u++) {
            std::cout << "[ apsm     ] " << f.name << " user " << u << ": APSM "
                      << apsm[u].symbols << ", least squares " << ls[u].symbols
                      << " symbol errors of " << rec.data_symbols << std::endl;
            EXPECT_LE(apsm[u].symbols, ls[u].symbols) << f.name << ", user " << u;
        }
    }
}

TEST(ApsmOverTheAir, DefaultsAreAtLeastAsGoodAsLeastSquaresOnFewAntennas)
{
    // The least-squares guard's purpose: with 1, 2 and 4 of the 16 ports (equidistant,
    // as gpumimo_apsm_ota --antennas), where APSM's kernel corrections alone did worse
    // than least squares for most users of the 16-QAM files (docs/apsm.md), the defaults
    // make no more bit errors than least squares for any user of any recording.
    for (const apsm_ota_file& f : apsm_ota_files(apsm_ota_dir())) {
        apsm_recording full;
        if (!load_apsm_ota(f, full))
            GTEST_SKIP() << "recordings absent (GPUMIMO_ALLOW_MISSING_DATA=1)";
        for (const int n : { 1, 2, 4 }) {
            const apsm_recording rec =
                select_antennas(full, antenna_subset("equidistant", n, full.antennas));
            const auto ls = count_errors(rec, true, apsm_params());
            const auto apsm = count_errors(rec, false, apsm_params());
            for (int u = 0; u < rec.users(); u++) {
                std::cout << "[ apsm     ] " << f.name << ", " << n << " antennas, user " << u
                          << ": APSM " << apsm[u].bits << ", least squares " << ls[u].bits
                          << " bit errors" << std::endl;
                EXPECT_LE(apsm[u].bits, ls[u].bits) << f.name << ", " << n << " antennas, user " << u;
            }
        }
    }
}
