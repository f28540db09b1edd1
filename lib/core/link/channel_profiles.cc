/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The 3GPP TR 38.901 TDL power delay profiles and the TS 36.101 / 38.101-4 antenna
 * correlation matrices (core/link/channel_profiles.h).
 */
#include <gnuradio/gpumimo/core/link/channel_profiles.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

struct tdl_tap {
    double delay; // normalised to an RMS delay spread of 1
    double power_db;
    bool los;
};

// TR 38.901 V16.1 Table 7.7.2-1 .. 7.7.2-5, in the tables' tap order.
const std::vector<tdl_tap> tdl_a = {
    { 0.0000, -13.4, false }, { 0.3819, 0.0, false },   { 0.4025, -2.2, false },
    { 0.5868, -4.0, false },  { 0.4610, -6.0, false },  { 0.5375, -8.2, false },
    { 0.6708, -9.9, false },  { 0.5750, -10.5, false }, { 0.7618, -7.5, false },
    { 1.5375, -15.9, false }, { 1.8978, -6.6, false },  { 2.2242, -16.7, false },
    { 2.1718, -12.4, false }, { 2.4942, -15.2, false }, { 2.5119, -10.8, false },
    { 3.0582, -11.3, false }, { 4.0810, -12.7, false }, { 4.4579, -16.2, false },
    { 4.5695, -18.3, false }, { 4.7966, -18.9, false }, { 5.0066, -16.6, false },
    { 5.3043, -19.9, false }, { 9.6586, -29.7, false },
};
const std::vector<tdl_tap> tdl_b = {
    { 0.0000, 0.0, false },   { 0.1072, -2.2, false },  { 0.2155, -4.0, false },
    { 0.2095, -3.2, false },  { 0.2870, -9.8, false },  { 0.2986, -1.2, false },
    { 0.3752, -3.4, false },  { 0.5055, -5.2, false },  { 0.3681, -7.6, false },
    { 0.3697, -3.0, false },  { 0.5700, -8.9, false },  { 0.5283, -9.0, false },
    { 1.1021, -4.8, false },  { 1.2756, -5.7, false },  { 1.5474, -7.5, false },
    { 1.7842, -1.9, false },  { 2.0169, -7.6, false },  { 2.8294, -12.2, false },
    { 3.0219, -9.8, false },  { 3.6187, -11.4, false }, { 4.1067, -14.9, false },
    { 4.2790, -9.2, false },  { 4.7834, -11.3, false },
};
const std::vector<tdl_tap> tdl_c = {
    { 0.0000, -4.4, false },  { 0.2099, -1.2, false },  { 0.2219, -3.5, false },
    { 0.2329, -5.2, false },  { 0.2176, -2.5, false },  { 0.6366, 0.0, false },
    { 0.6448, -2.2, false },  { 0.6560, -3.9, false },  { 0.6584, -7.4, false },
    { 0.7935, -7.1, false },  { 0.8213, -10.7, false }, { 0.9336, -11.1, false },
    { 1.2285, -5.1, false },  { 1.3083, -6.8, false },  { 2.1704, -8.7, false },
    { 2.7105, -13.2, false }, { 4.2589, -13.9, false }, { 4.6003, -13.9, false },
    { 5.4902, -15.8, false }, { 5.6077, -17.1, false }, { 6.3065, -16.0, false },
    { 6.6374, -15.7, false }, { 7.0427, -21.6, false }, { 8.6523, -22.8, false },
};
// TDL-D and TDL-E: tap 1 is a LOS path and a Rayleigh path at the same delay.
const std::vector<tdl_tap> tdl_d = {
    { 0.000, -0.2, true },    { 0.000, -13.5, false },  { 0.035, -18.8, false },
    { 0.612, -21.0, false },  { 1.363, -22.8, false },  { 1.405, -17.9, false },
    { 1.804, -20.1, false },  { 2.596, -21.9, false },  { 1.775, -22.9, false },
    { 4.042, -27.8, false },  { 7.937, -23.6, false },  { 9.424, -24.8, false },
    { 9.708, -30.0, false },  { 12.525, -27.7, false },
};
const std::vector<tdl_tap> tdl_e = {
    { 0.0000, -0.03, true },   { 0.0000, -22.03, false }, { 0.5133, -15.8, false },
    { 0.5440, -18.1, false },  { 0.5630, -19.8, false },  { 0.5440, -22.9, false },
    { 0.7112, -22.4, false },  { 1.9092, -18.6, false },  { 1.9293, -20.8, false },
    { 1.9589, -22.6, false },  { 2.6426, -22.3, false },  { 3.7136, -25.6, false },
    { 5.4524, -20.2, false },  { 12.0034, -29.8, false }, { 20.6519, -29.2, false },
};

const std::vector<tdl_tap>* tdl_table(const std::string& model)
{
    if (model == "tdl-a")
        return &tdl_a;
    if (model == "tdl-b")
        return &tdl_b;
    if (model == "tdl-c")
        return &tdl_c;
    if (model == "tdl-d")
        return &tdl_d;
    if (model == "tdl-e")
        return &tdl_e;
    return nullptr;
}

} // namespace

std::vector<std::string> tdl_model_names() { return { "tdl-a", "tdl-b", "tdl-c", "tdl-d", "tdl-e" }; }

bool is_tdl_model(const std::string& model) { return tdl_table(model) != nullptr; }

std::vector<channel_path> tdl_paths(const std::string& model,
                                    double delay_spread,
                                    double sample_rate,
                                    double k_factor_db)
{
    const std::vector<tdl_tap>* table = tdl_table(model);
    if (!table)
        throw std::invalid_argument("unknown TDL model " + quoted_text(model) +
                                    " (choose tdl-a, tdl-b, tdl-c, tdl-d or tdl-e)");
    if (!(delay_spread > 0) || !std::isfinite(delay_spread))
        throw std::invalid_argument(model + ": the delay spread must be finite and > 0 seconds");
    if (!(sample_rate > 0) || !std::isfinite(sample_rate))
        throw std::invalid_argument(model + ": the sample rate must be finite and > 0 Hz");
    const bool los = table->front().los;
    if (std::isfinite(k_factor_db) && !los)
        throw std::invalid_argument(model + " has no LOS path: a K-factor applies to tdl-d and tdl-e");
    if (std::isinf(k_factor_db))
        throw std::invalid_argument(model + ": the K-factor must be finite (or NaN: the table's)");
    std::vector<channel_path> paths;
    for (const tdl_tap& t : *table)
        paths.push_back({ t.delay * delay_spread * sample_rate, std::pow(10.0, t.power_db / 10), t.los });
    if (los && std::isfinite(k_factor_db)) // paths[1]: the Rayleigh part of tap 1
        paths[0].power = paths[1].power * std::pow(10.0, k_factor_db / 10);
    double sum = 0;
    for (const channel_path& p : paths)
        sum += p.power;
    for (channel_path& p : paths)
        p.power /= sum;
    return paths;
}

double rms_delay_spread(const std::vector<channel_path>& paths)
{
    double w = 0, m1 = 0, m2 = 0;
    for (const channel_path& p : paths) {
        w += p.power;
        m1 += p.power * p.delay;
        m2 += p.power * p.delay * p.delay;
    }
    if (!(w > 0))
        return 0;
    m1 /= w;
    return std::sqrt(std::max(m2 / w - m1 * m1, 0.0));
}

std::vector<double> antenna_correlation(int n, double a)
{
    if (n < 1)
        throw std::invalid_argument("antenna_correlation: n must be >= 1");
    if (!(a >= 0 && a < 1))
        throw std::invalid_argument("antenna_correlation: the correlation must be in [0, 1)");
    std::vector<double> r(std::size_t(n) * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double e = n > 1 ? double(i - j) / (n - 1) : 0.0;
            r[std::size_t(i) * n + j] = i == j ? 1.0 : std::pow(a, e * e);
        }
    return r;
}

correlation_level parse_correlation_level(const std::string& name)
{
    if (name == "none" || name == "low")
        return { 0.0, 0.0 };
    if (name == "medium")
        return { 0.3, 0.9 };
    if (name == "medium-a")
        return { 0.3, 0.3 };
    if (name == "high")
        return { 0.9, 0.9 };
    throw std::invalid_argument("unknown antenna correlation " + quoted_text(name) +
                                " (choose none, low, medium, medium-a or high)");
}

} // namespace core
} // namespace gpumimo
} // namespace gr
