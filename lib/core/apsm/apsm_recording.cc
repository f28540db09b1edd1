/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reader of the APSM over-the-air recordings' container format, strict about every
 * length so that a corrupt file is an error, never a half-read array.
 */
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>
#include <gnuradio/gpumimo/core/file_bytes.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

class byte_reader
{
public:
    byte_reader(std::vector<char> bytes, const std::string& label)
        : d_path(label), d_bytes(std::move(bytes))
    {
    }

    std::int32_t int32(const char* what)
    {
        std::int32_t v;
        take(&v, sizeof v, what);
        return v;
    }
    void take(void* out, std::size_t n, const char* what)
    {
        if (n > d_bytes.size() - d_at)
            fail(std::string("truncated in ") + what);
        if (n == 0) // an empty array: memcpy's pointers may not be null even for 0 bytes
            return;
        std::memcpy(out, d_bytes.data() + d_at, n);
        d_at += n;
    }
    std::size_t left() const { return d_bytes.size() - d_at; }
    [[noreturn]] void fail(const std::string& why) const
    {
        throw std::runtime_error(d_path + ": " + why + " (byte " + std::to_string(d_at) +
                                 " of " + std::to_string(d_bytes.size()) + ")");
    }

private:
    std::string d_path;
    std::vector<char> d_bytes;
    std::size_t d_at = 0;
};

const named_array& key(const std::map<std::string, named_array>& arrays,
                       const std::string& name,
                       const std::string& path,
                       std::size_t rank)
{
    const auto it = arrays.find(name);
    if (it == arrays.end())
        throw std::runtime_error(path + ": no array named " + name);
    if (it->second.dims.size() != rank || it->second.dims.back() != 2)
        throw std::runtime_error(path + ": " + name + " is not [symbols, channels, 2]");
    return it->second;
}

} // namespace

std::map<std::string, named_array> read_array_container(const std::string& path)
{
    // The public recordings' containers are a few MB; a larger file is not one.
    constexpr std::uint64_t max_container_bytes = 1ull << 30;
    return parse_array_container(read_regular_file(path, max_container_bytes), path);
}

std::map<std::string, named_array> parse_array_container(std::vector<char> bytes,
                                                         const std::string& label)
{
    byte_reader in(std::move(bytes), label);
    const std::int32_t keys = in.int32("the key count");
    if (keys < 1 || keys > 64)
        in.fail("implausible key count " + std::to_string(keys));
    std::vector<std::string> names;
    for (int k = 0; k < keys; k++) {
        const std::int32_t len = in.int32("a name length");
        if (len < 1 || len > 256)
            in.fail("implausible name length " + std::to_string(len));
        std::string name(std::size_t(len), '\0');
        in.take(name.data(), name.size(), "a name");
        names.push_back(name);
    }
    std::map<std::string, named_array> arrays;
    for (const std::string& name : names) {
        named_array a;
        const std::int32_t rank = in.int32("a rank");
        if (rank < 1 || rank > 8)
            in.fail(name + ": implausible rank " + std::to_string(rank));
        std::size_t count = 1;
        for (int d = 0; d < rank; d++) {
            const std::int32_t n = in.int32("a dimension");
            if (n < 0)
                in.fail(name + ": negative dimension");
            a.dims.push_back(n);
            count *= std::size_t(n);
            if (count * sizeof(float) > in.left())
                in.fail(name + ": its data would run past the end of the file");
        }
        a.data.resize(count);
        in.take(a.data.data(), count * sizeof(float), "array data");
        if (!arrays.emplace(name, std::move(a)).second)
            in.fail("the name " + name + " appears twice");
    }
    if (in.left() != 0)
        in.fail(std::to_string(in.left()) + " bytes after the last array");
    return arrays;
}

apsm_recording load_apsm_recording(const std::string& rx_path, const std::string& tx_path)
{
    return apsm_recording_from(read_array_container(rx_path), read_array_container(tx_path),
                               rx_path, tx_path);
}

apsm_recording apsm_recording_from(const std::map<std::string, named_array>& rx,
                                   const std::map<std::string, named_array>& tx,
                                   const std::string& rx_path,
                                   const std::string& tx_path)
{
    const named_array& rx_train = key(rx, "rxSigTraining", rx_path, 3);
    const named_array& rx_data = key(rx, "rxSigData", rx_path, 3);
    const named_array& tx_train = key(tx, "mod_training", tx_path, 3);
    const named_array& tx_data = key(tx, "mod_data", tx_path, 3);
    if (rx_train.dims[1] != rx_data.dims[1] || rx_train.dims[1] < 1)
        throw std::runtime_error(rx_path + ": training and data have different antenna counts");
    if (tx_train.dims[1] != tx_data.dims[1])
        throw std::runtime_error(tx_path + ": training and data have different user slots");
    if (rx_train.dims[0] != tx_train.dims[0])
        throw std::runtime_error(rx_path + " and " + tx_path +
                                 ": different training lengths");

    apsm_recording r;
    r.antennas = rx_train.dims[1];
    r.training_symbols = std::size_t(rx_train.dims[0]);
    r.data_symbols = std::size_t(std::min(rx_data.dims[0], tx_data.dims[0]));
    if (r.data_symbols == 0) // nothing to detect or score: error rates would be 0 / 0
        throw std::runtime_error(rx_path + " and " + tx_path + ": no data symbols");
    auto complex_rows = [&](const named_array& a, std::size_t rows, const std::string& path) {
        std::vector<std::complex<float>> out(rows * std::size_t(a.dims[1]));
        for (std::size_t i = 0; i < out.size(); i++) {
            out[i] = { a.data[2 * i], a.data[2 * i + 1] };
            if (!std::isfinite(out[i].real()) || !std::isfinite(out[i].imag()))
                throw std::runtime_error(path + ": non-finite received sample");
        }
        return out;
    };
    r.rx_training = complex_rows(rx_train, r.training_symbols, rx_path);
    r.rx_data = complex_rows(rx_data, r.data_symbols, rx_path);

    // The sent symbols: odd integers; the largest says the order, and real ones (every
    // imaginary part 0) are BPSK.
    float largest = 0;
    bool real_only = true;
    for (const named_array* a : { &tx_train, &tx_data })
        for (std::size_t i = 0; i < a->data.size(); i++) {
            const float v = a->data[i];
            const float odd = (v - 1) / 2;
            if (!std::isfinite(v) || (v != 0 && odd != std::round(odd)))
                throw std::runtime_error(tx_path + ": sent symbols off the odd-integer QAM grid");
            largest = std::max(largest, std::abs(v));
            real_only &= i % 2 == 0 || v == 0;
        }
    if (real_only && largest == 1)
        r.mod = modulation::bpsk;
    else if (largest == 1)
        r.mod = modulation::qpsk;
    else if (largest == 3)
        r.mod = modulation::qam16;
    else if (largest == 7)
        r.mod = modulation::qam64;
    else if (largest == 15)
        r.mod = modulation::qam256;
    else if (largest == 31)
        r.mod = modulation::qam1024;
    else
        throw std::runtime_error(tx_path + ": no square QAM has largest coordinate " +
                                 std::to_string(largest));
    // Onto the unit-energy constellation: square QAM scaled; BPSK's real +-1 turned by
    // e^{j pi/4} onto TS 38.211's (1+j)/sqrt(2) diagonal (the received samples stay as
    // they are: the filters learn the turn with the rest).
    const std::complex<float> onto =
        r.mod == modulation::bpsk ? std::polar(1.0f, float(M_PI / 4))
                                  : std::complex<float>(float(constellation(r.mod).scale()), 0.0f);
    const int slots = tx_train.dims[1];
    for (int u = 0; u < slots; u++) {
        auto column = [&](const named_array& a, std::size_t rows) {
            std::vector<std::complex<float>> out(rows);
            for (std::size_t t = 0; t < rows; t++) {
                const std::size_t at = 2 * (t * slots + u);
                out[t] = std::complex<float>(a.data[at], a.data[at + 1]) * onto;
            }
            return out;
        };
        std::vector<std::complex<float>> train = column(tx_train, r.training_symbols);
        bool active = false;
        for (const auto& s : train)
            active |= s != std::complex<float>(0, 0);
        if (!active)
            continue;
        for (const auto& s : train)
            if (s == std::complex<float>(0, 0))
                throw std::runtime_error(tx_path + ": user slot " + std::to_string(u) +
                                         " has zero training symbols among its symbols");
        r.user_slots.push_back(u);
        r.sent_training.push_back(std::move(train));
        r.sent_data.push_back(column(tx_data, r.data_symbols));
    }
    if (r.user_slots.empty())
        throw std::runtime_error(tx_path + ": no active user");
    // Every point has two nonzero coordinates (BPSK's too, once turned), so an active
    // user's symbol with a zero one is no point of the constellation: a QPSK recording
    // with one real symbol, or a BPSK one with a zero.
    for (std::size_t k = 0; k < r.sent_training.size(); k++)
        for (const auto* symbols : { &r.sent_training[k], &r.sent_data[k] })
            for (const std::complex<float>& s : *symbols)
                if (s.real() == 0 || s.imag() == 0)
                    throw std::runtime_error(tx_path + ": an active user sends a symbol with a "
                                                       "zero coordinate, which is no " +
                                             to_string(r.mod) + " point");
    return r;
}

std::vector<int> antenna_subset(const std::string& kind, int n, int total)
{
    if (total < 1 || n < 1 || n > total)
        throw std::invalid_argument("antenna_subset: " + std::to_string(n) + " of " +
                                    std::to_string(total) + " antennas");
    std::vector<int> a(static_cast<std::size_t>(n));
    if (kind == "first") {
        for (int i = 0; i < n; i++)
            a[std::size_t(i)] = i;
    } else if (kind == "equidistant") {
        for (int i = 0; i < n; i++)
            a[std::size_t(i)] = int(std::int64_t(i) * total / n);
    } else {
        throw std::invalid_argument("antenna_subset: " + quoted_text(kind) +
                                    " (first or equidistant)");
    }
    return a;
}

apsm_recording select_antennas(const apsm_recording& r, const std::vector<int>& antennas)
{
    std::vector<bool> seen(std::size_t(std::max(r.antennas, 0)), false);
    if (antennas.empty())
        throw std::invalid_argument("select_antennas: no antenna");
    for (int a : antennas) {
        if (a < 0 || a >= r.antennas || seen[std::size_t(a)])
            throw std::invalid_argument("select_antennas: antenna " + std::to_string(a) +
                                        " is outside 0.." + std::to_string(r.antennas - 1) +
                                        " or given twice");
        seen[std::size_t(a)] = true;
    }
    apsm_recording s = r;
    s.antennas = int(antennas.size());
    auto columns = [&](const std::vector<std::complex<float>>& from, std::size_t rows) {
        std::vector<std::complex<float>> out(rows * antennas.size());
        for (std::size_t t = 0; t < rows; t++)
            for (std::size_t k = 0; k < antennas.size(); k++)
                out[t * antennas.size() + k] =
                    from[t * std::size_t(r.antennas) + std::size_t(antennas[k])];
        return out;
    };
    s.rx_training = columns(r.rx_training, r.training_symbols);
    s.rx_data = columns(r.rx_data, r.data_symbols);
    return s;
}

std::vector<apsm_ota_file> apsm_ota_files(const std::string& dir)
{
    std::vector<apsm_ota_file> files;
    for (const char* variant : { "ofdm", "time" })
        for (const auto& [rx_mod, tx_mod] :
             { std::pair<const char*, const char*>("QPSK", "qpsk"), { "QAM16", "qam16" } })
            files.push_back({ std::string(rx_mod) + " " + variant,
                              dir + "/rx/" + variant + "/rxData_" + rx_mod +
                                  "_alltx_converted.bin",
                              dir + "/tx/NOMA_signals_" + tx_mod + "_complex.bin" });
    return files;
}

symbol_errors count_symbol_errors(const constellation& c,
                                  const std::complex<float>* soft,
                                  const std::complex<float>* sent,
                                  std::size_t n)
{
    std::vector<int> got(n), want(n);
    hard_symbols(c, soft, n, got.data());
    hard_symbols(c, sent, n, want.data());
    symbol_errors e;
    for (std::size_t t = 0; t < n; t++) {
        e.symbols += got[t] != want[t];
        e.libapsm_symbols += libapsm_counts_symbol_error(soft[t], sent[t], c);
        for (int k = 0; k < c.bits_per_symbol(); k++)
            e.bits += c.bit(got[t], k) != c.bit(want[t], k);
    }
    return e;
}

bool libapsm_counts_symbol_error(std::complex<float> y,
                                 std::complex<float> sent,
                                 const constellation& c)
{
    if (std::isnan(std::abs(y)))
        return true;
    float s = float(c.scale()), outer = c.square() ? float(c.pam_size() - 1) * s : 1.0f;
    if (!c.square()) { // BPSK: the library's own real +-1 (unit scale), turned back
        const std::complex<float> back = std::polar(1.0f, float(-M_PI / 4));
        y *= back;
        sent *= back;
        s = 1.0f;
    }
    if (std::abs(y.real() - sent.real()) > s &&
        !(y.real() > outer && sent.real() > outer - s) &&
        !(y.real() < -outer && sent.real() < -outer + s))
        return true;
    return std::abs(y.imag() - sent.imag()) > s &&
           !(y.imag() > outer && sent.imag() < outer - s) && // sic: as the library
           !(y.imag() < -outer && sent.imag() > -outer + s);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
