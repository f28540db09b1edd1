/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random payload runs for the payload detector's tests: y = H s + n on every used
 * carrier of `symbols` symbols, H and N0 per used carrier, as mimo_chanest hands a run
 * to mimo_detector.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_PAYLOAD_RUNS_H
#define INCLUDED_GPUMIMO_TESTS_PAYLOAD_RUNS_H

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

namespace gpumimo_test {

struct random_run {
    int nt = 0, nr = 0;
    std::size_t used = 0, symbols = 0;
    std::vector<std::vector<std::complex<float>>> carriers; // [rx][symbol][used carrier]
    std::vector<const std::complex<float>*> starts;
    std::vector<std::complex<float>> h; // [used carrier][rx][tx]
    std::vector<float> noise;           // [used carrier]

    gr::gpumimo::core::payload_run view()
    {
        starts.clear();
        for (const auto& c : carriers)
            starts.push_back(c.data());
        gr::gpumimo::core::payload_run r;
        r.carriers = starts.data();
        r.symbols = symbols;
        r.h = h.data();
        r.noise = noise.data();
        return r;
    }
};

/*! i.i.d. CN(0,1) H per carrier, random points of `mod`, N0 per carrier around the
 *  SNR's (a factor 0.5 to 2 apart, so that each carrier's own N0 matters). */
inline random_run make_random_run(std::mt19937_64& rng,
                                  const gr::gpumimo::core::numerology& num,
                                  gr::gpumimo::core::modulation mod,
                                  int nt,
                                  int nr,
                                  std::size_t symbols,
                                  double snr_db)
{
    using cf = std::complex<float>;
    const gr::gpumimo::core::constellation c(mod);
    random_run r;
    r.nt = nt;
    r.nr = nr;
    r.used = std::size_t(num.used_carriers);
    r.symbols = symbols;
    std::normal_distribution<double> g(0.0, std::sqrt(0.5));
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    std::uniform_real_distribution<double> spread(0.5, 2.0);
    const double n0 = nt * std::pow(10.0, -snr_db / 10.0);
    r.h.resize(r.used * nr * nt);
    for (auto& v : r.h)
        v = cf(float(g(rng)), float(g(rng)));
    r.noise.resize(r.used);
    for (auto& v : r.noise)
        v = float(n0 * spread(rng));
    r.carriers.assign(std::size_t(nr), std::vector<cf>(symbols * r.used));
    for (std::size_t s = 0; s < symbols; s++)
        for (std::size_t u = 0; u < r.used; u++) {
            std::vector<std::complex<double>> x(static_cast<std::size_t>(nt));
            for (auto& v : x)
                v = c.point(pick(rng));
            const double sd = std::sqrt(double(r.noise[u]));
            for (int a = 0; a < nr; a++) {
                std::complex<double> acc = 0;
                for (int t = 0; t < nt; t++)
                    acc += std::complex<double>(r.h[(u * nr + a) * nt + t]) * x[std::size_t(t)];
                acc += sd * std::complex<double>(g(rng), g(rng));
                r.carriers[std::size_t(a)][s * r.used + u] = cf(acc);
            }
        }
    return r;
}

} // namespace gpumimo_test

#endif
