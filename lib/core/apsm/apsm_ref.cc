/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM detector's plain reference: training by equations (8) and (9) of
 * apsm-multiuser-detection-gpu.txt, one projection after another, every filter value
 * evaluated in full (no Gram matrix, no incremental predictions), double accumulation.
 * The CUDA path is held to it.
 */
#include "detail/apsm_internal.h"

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

apsm_params apsm_params::library_defaults()
{
    apsm_params p;
    p.linear_weight = 0.5f;
    p.gaussian_weight = 0.5f;
    p.gaussian_variance = 0.05f;
    p.scale_variance_by_antennas = true;
    p.normalize_input = false;
    p.window = 20;
    p.sample_step = 2;
    p.passes = 1;
    p.dictionary_size = 685;
    p.epsilon = 0.001f;
    p.ls_init = false;
    p.norm_bound = 0.0f;
    p.ls_guard = false;
    return p;
}

double apsm_params::kernel_variance(int antennas) const
{
    return scale_variance_by_antennas ? double(gaussian_variance) * antennas * antennas
                                      : double(gaussian_variance);
}

void validate(const apsm_params& p)
{
    auto bad = [](const std::string& what) {
        throw std::invalid_argument("apsm_params: " + what);
    };
    // x >= 0 && x <= FLT_MAX: finite and not negative (NaN fails both).
    auto finite_non_negative = [](float x) { return x >= 0 && x <= FLT_MAX; };
    if (!finite_non_negative(p.linear_weight) || !finite_non_negative(p.gaussian_weight) ||
        p.linear_weight + p.gaussian_weight <= 0)
        bad("linear_weight and gaussian_weight must be finite and >= 0, not both 0");
    if (p.gaussian_weight > 0 &&
        !(finite_non_negative(p.gaussian_variance) && p.gaussian_variance > 0))
        bad("gaussian_variance must be finite and > 0");
    if (p.window < 1 || p.window > max_apsm_dictionary)
        bad("window must be 1 to " + std::to_string(max_apsm_dictionary));
    if (p.sample_step < 1 || p.sample_step > 2 * max_apsm_dictionary)
        bad("sample_step must be 1 to " + std::to_string(2 * max_apsm_dictionary));
    if (p.passes < 1 || p.passes > max_apsm_passes)
        bad("passes must be 1 to " + std::to_string(max_apsm_passes));
    if (p.dictionary_size < p.window || p.dictionary_size > max_apsm_dictionary)
        bad("dictionary_size must be window (the window's samples are in it) to " +
            std::to_string(max_apsm_dictionary));
    if (!finite_non_negative(p.epsilon))
        bad("epsilon must be finite and >= 0");
    if (!finite_non_negative(p.norm_bound))
        bad("norm_bound must be finite and >= 0");
    if (!finite_non_negative(p.tracking_linear_weight))
        bad("tracking_linear_weight must be finite and >= 0");
    if (p.ls_init && !(p.linear_weight > 0))
        bad("ls_init needs linear_weight > 0");
}

void apsm_real_pair(const std::complex<float>* r,
                    int antennas,
                    double scale,
                    float* x1,
                    float* x2)
{
    for (int m = 0; m < antennas; m++) {
        const float re = float(r[m].real() * scale), im = float(r[m].imag() * scale);
        x1[m] = re;
        x1[antennas + m] = im;
        x2[m] = im;
        x2[antennas + m] = -re;
    }
}

double apsm_filter::gaussian_sum(const float* x) const
{
    const int dim = 2 * antennas;
    const double exp_weight = -0.5 / variance;
    double sum = 0;
    for (std::size_t i = 0; i < gauss.size(); i++) {
        if (gauss[i] == 0)
            continue; // adds nothing
        const float* e = &dict[i * dim];
        double dist2 = 0;
        for (int d = 0; d < dim; d++) {
            const double diff = double(e[d]) - x[d];
            dist2 += diff * diff;
        }
        sum += gauss[i] * std::exp(exp_weight * dist2);
    }
    return sum;
}

double apsm_filter::eval(const float* x) const
{
    const int dim = 2 * antennas;
    double lin_part = 0;
    for (int d = 0; d < dim; d++)
        lin_part += lin[d] * x[d];
    return linear_weight * lin_part + gaussian_weight * gaussian_sum(x);
}

double training_residual(const apsm_filter& f,
                         const std::complex<float>* rx,
                         std::size_t n,
                         const std::complex<float>* sent)
{
    std::vector<std::complex<float>> soft(n);
    apsm_detect(f, rx, n, soft.data());
    double sum = 0;
    for (std::size_t t = 0; t < n; t++)
        sum += std::norm(std::complex<double>(soft[t]) - std::complex<double>(sent[t]));
    return std::max(sum / double(n), 1e-6);
}

void check_training_input(const std::complex<float>* rx,
                          std::size_t n,
                          int antennas,
                          const std::complex<float>* sent)
{
    if (antennas < 1)
        throw std::invalid_argument("APSM: antennas must be >= 1");
    if (n == 0 || !rx || !sent)
        throw std::invalid_argument("APSM: no training symbols");
    for (std::size_t i = 0; i < n * std::size_t(antennas); i++)
        if (!std::isfinite(rx[i].real()) || !std::isfinite(rx[i].imag()))
            throw std::invalid_argument("APSM: non-finite received training sample at "
                                        "symbol " +
                                        std::to_string(i / antennas) + ", antenna " +
                                        std::to_string(i % antennas));
    check_training_symbols(sent, n);
}

void check_training_symbols(const std::complex<float>* sent, std::size_t n)
{
    if (n == 0 || !sent)
        throw std::invalid_argument("APSM: no training symbols");
    for (std::size_t t = 0; t < n; t++)
        if (!std::isfinite(sent[t].real()) || !std::isfinite(sent[t].imag()))
            throw std::invalid_argument("APSM: non-finite training symbol " +
                                        std::to_string(t));
}

std::size_t dictionary_capacity(const apsm_params& p, std::size_t total)
{
    const std::size_t capacity = std::min<std::size_t>(2 * std::size_t(p.dictionary_size), total);
    if (p.passes > 1 && capacity < total)
        throw std::invalid_argument("APSM: several passes need the whole training set in "
                                    "the dictionary (dictionary_size >= training symbols)");
    return capacity;
}

double training_input_scale(const std::complex<float>* rx, std::size_t n, int antennas)
{
    double power = 0;
    for (std::size_t i = 0; i < n * std::size_t(antennas); i++)
        power += double(rx[i].real()) * rx[i].real() + double(rx[i].imag()) * rx[i].imag();
    power /= double(n);
    if (!(power > 0))
        throw std::invalid_argument("APSM: the training vectors are all zero");
    return 1 / std::sqrt(power);
}

namespace {

// The training set as real samples: x[2t] = r1(t) with target Re b_t, x[2t+1] = r2(t)
// with target Im b_t.
struct real_samples {
    int dim;
    std::vector<float> x;
    std::vector<double> target;

    real_samples(const std::complex<float>* rx,
                 std::size_t n,
                 int antennas,
                 const std::complex<float>* sent,
                 double scale)
        : dim(2 * antennas), x(2 * n * dim), target(2 * n)
    {
        for (std::size_t t = 0; t < n; t++) {
            apsm_real_pair(
                rx + t * antennas, antennas, scale, &x[2 * t * dim], &x[(2 * t + 1) * dim]);
            target[2 * t] = sent[t].real();
            target[2 * t + 1] = sent[t].imag();
        }
    }
    std::size_t size() const { return target.size(); }
    const float* at(std::size_t i) const { return &x[i * dim]; }
};

// The hyperslab step of equation (9) before the kernel norm: how far f(x) = value is
// outside [target - epsilon, target + epsilon], signed towards it.
double hyperslab_excess(double target, double value, double epsilon)
{
    const double distance = target - value;
    if (distance > epsilon)
        return distance - epsilon;
    if (distance < -epsilon)
        return distance + epsilon;
    return 0;
}

} // namespace

apsm_filter apsm_train(const apsm_params& p,
                       const std::complex<float>* rx,
                       std::size_t n,
                       int antennas,
                       const std::complex<float>* sent)
{
    validate(p);
    check_training_input(rx, n, antennas, sent);
    const double input_scale = p.normalize_input ? training_input_scale(rx, n, antennas) : 1.0;
    const real_samples s(rx, n, antennas, sent, input_scale);
    const std::size_t total = s.size();
    const std::size_t capacity = dictionary_capacity(p, total);
    const int dim = s.dim;

    apsm_filter f;
    f.antennas = antennas;
    f.input_scale = input_scale;
    f.linear_weight = p.linear_weight;
    f.gaussian_weight = p.gaussian_weight;
    f.variance = p.kernel_variance(antennas);
    f.lin.assign(dim, 0.0);
    if (p.ls_init) {
        const std::vector<double> ls = ls_weights(rx, n, antennas, { sent })[0];
        for (int d = 0; d < dim; d++) // wL * lin = the LS filter, on the scaled input
            f.lin[d] = ls[d] / (p.linear_weight * input_scale);
    }

    // The filter's dictionary holds every training sample and f.gauss their
    // coefficients; the live dictionary is [first, used): samples not yet reached and
    // evicted ones have coefficient 0, which eval() skips. Trimmed at the end.
    f.dict = s.x;
    f.gauss.assign(total, 0.0);
    std::size_t first = 0, used = 0;
    const std::size_t span = 2 * std::size_t(p.window);

    std::vector<double> beta;
    for (int pass = 0; pass < p.passes; pass++) {
        for (std::size_t end = p.sample_step; end <= total; end += p.sample_step) {
            if (pass == 0) { // the dictionary grows with the samples
                used = end;
                while (used - first > capacity)
                    f.gauss[first++] = 0.0;
            }
            // The window: the last (up to) 2W samples, all projected from the same f.
            const std::size_t lo = end - std::min(span, end);
            const std::size_t count = end - lo;
            beta.assign(count, 0.0);
            for (std::size_t k = 0; k < count; k++) {
                const std::size_t j = lo + k;
                const double excess =
                    hyperslab_excess(s.target[j], f.eval(s.at(j)), p.epsilon);
                if (excess == 0)
                    continue;
                double norm2 = 0; // kappa(x_j, x_j) = wL ||x_j||^2 + wG
                for (int d = 0; d < dim; d++)
                    norm2 += double(s.at(j)[d]) * s.at(j)[d];
                const double kappa = p.linear_weight * norm2 + p.gaussian_weight;
                beta[k] = excess / double(count) / kappa;
            }
            for (std::size_t k = 0; k < count; k++) {
                const std::size_t j = lo + k;
                f.gauss[j] += beta[k];
                for (int d = 0; d < dim; d++)
                    f.lin[d] += beta[k] * s.at(j)[d];
            }
            if (p.norm_bound > 0 && p.gaussian_weight > 0) {
                // ||f_G||^2 = wG sum_ij g_i g_j kG(r_i, r_j) = wG sum_i g_i (sum of f_G at r_i)
                double norm2 = 0;
                for (std::size_t i = first; i < used; i++)
                    if (f.gauss[i] != 0)
                        norm2 += f.gauss[i] * f.gaussian_sum(s.at(i));
                const double norm = std::sqrt(std::max(0.0, p.gaussian_weight * norm2));
                if (norm > p.norm_bound)
                    for (std::size_t i = first; i < used; i++)
                        f.gauss[i] *= p.norm_bound / norm;
            }
        }
    }
    f.dict.assign(s.x.begin() + first * dim, s.x.begin() + used * dim);
    f.gauss.erase(f.gauss.begin() + used, f.gauss.end());
    f.gauss.erase(f.gauss.begin(), f.gauss.begin() + first);
    f.noise_variance = training_residual(f, rx, n, sent);
    return f;
}

void apsm_detect(const apsm_filter& f,
                 const std::complex<float>* rx,
                 std::size_t n,
                 std::complex<float>* soft)
{
    const int dim = 2 * f.antennas;
    std::vector<float> x1(dim), x2(dim);
    for (std::size_t t = 0; t < n; t++) {
        apsm_real_pair(rx + t * f.antennas, f.antennas, f.input_scale, x1.data(), x2.data());
        soft[t] = { float(f.eval(x1.data())), float(f.eval(x2.data())) };
    }
}

void apsm_track(const apsm_params& p,
                const constellation& c,
                apsm_filter& f,
                const std::complex<float>* rx,
                std::size_t n,
                std::complex<float>* soft)
{
    validate(p);
    if (f.antennas < 1 || f.lin.size() != 2 * std::size_t(f.antennas))
        throw std::invalid_argument("apsm_track: an untrained filter");
    const double w_track = p.tracking_linear_weight; // the projections' linear weight
    if (w_track > 0 && !(f.linear_weight > 0))
        throw std::invalid_argument("apsm_track: tracking_linear_weight > 0 needs a filter "
                                    "with a linear part (linear_weight > 0)");
    if (n > 0 && (!rx || !soft))
        throw std::invalid_argument("apsm_track: null buffers");
    const std::size_t dim = 2 * std::size_t(f.antennas);
    if (f.trained_entries == apsm_filter::no_tracking || f.trained_entries > f.entries()) {
        f.trained_entries = f.entries(); // the first call: what training left is kept
        f.tracking_targets.clear();
    }
    const std::size_t trained = f.trained_entries; // tracked entries come after them
    const std::size_t capacity = 2 * std::size_t(p.dictionary_size);
    const std::size_t span = 2 * std::size_t(p.window);
    std::vector<double>& target = f.tracking_targets; // the window's, oldest first
    std::vector<double> beta;
    std::vector<float> x1(dim), x2(dim);
    for (std::size_t t = 0; t < n; t++) {
        apsm_real_pair(rx + t * std::size_t(f.antennas), f.antennas, f.input_scale, x1.data(), x2.data());
        soft[t] = { float(f.eval(x1.data())), float(f.eval(x2.data())) };
        if (!std::isfinite(soft[t].real()) || !std::isfinite(soft[t].imag()))
            continue; // non-finite input: no decision to learn from
        int q = 0;
        hard_symbols(c, &soft[t], 1, &q);
        const std::complex<double> decided = c.point(q);
        // The symbol's two real samples join the dictionary (coefficient 0 until a
        // projection moves it) and the window.
        for (const auto& [x, b] : { std::pair<const float*, double>(x1.data(), decided.real()),
                                    { x2.data(), decided.imag() } }) {
            f.dict.insert(f.dict.end(), x, x + dim);
            f.gauss.push_back(0.0);
            target.push_back(b);
        }
        if (f.entries() - trained > capacity) { // the oldest tracked symbol leaves
            f.dict.erase(f.dict.begin() + std::ptrdiff_t(trained * dim),
                         f.dict.begin() + std::ptrdiff_t((trained + 2) * dim));
            f.gauss.erase(f.gauss.begin() + std::ptrdiff_t(trained),
                          f.gauss.begin() + std::ptrdiff_t(trained + 2));
        }
        if (target.size() > span)
            target.erase(target.begin(), target.begin() + std::ptrdiff_t(target.size() - span));
        const std::size_t count = std::min(target.size(), f.entries() - trained);
        const std::size_t first = f.entries() - count; // the window's dictionary entries
        const std::size_t first_target = target.size() - count;
        beta.assign(count, 0.0);
        for (std::size_t k = 0; k < count; k++) {
            const float* xj = &f.dict[(first + k) * dim];
            const double excess = hyperslab_excess(target[first_target + k], f.eval(xj), p.epsilon);
            if (excess == 0)
                continue;
            double norm2 = 0;
            for (std::size_t d = 0; d < dim; d++)
                norm2 += double(xj[d]) * xj[d];
            beta[k] = excess / double(count) / (w_track * norm2 + f.gaussian_weight);
        }
        for (std::size_t k = 0; k < count; k++) {
            const float* xj = &f.dict[(first + k) * dim];
            f.gauss[first + k] += beta[k];
            // f = wL lin.x + ...: the linear part moves by beta w_track x_j (in training
            // w_track = wL: lin by beta x_j)
            if (w_track > 0)
                for (std::size_t d = 0; d < dim; d++)
                    f.lin[d] += beta[k] * (w_track / f.linear_weight) * xj[d];
        }
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
