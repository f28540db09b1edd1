/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM frame format (docs/frame.md): numerology presets, PRBS, the frame's
 * carrier grid.
 */
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// Seeds of the known sequences (docs/frame.md).
constexpr std::uint32_t preamble_seed = 0x1A5;
constexpr std::uint32_t pilot_seed_base = 0x2B7;

// Unit-energy QPSK from two PRBS bits per value (the core constellation's labels).
std::vector<std::complex<float>> qpsk_sequence(std::uint32_t seed, std::size_t n)
{
    const constellation c(modulation::qpsk);
    prbs bits(15, seed);
    std::vector<std::complex<float>> out(n);
    for (auto& v : out) {
        const int b0 = bits.next(), b1 = bits.next();
        v = std::complex<float>(c.point(b0 << 1 | b1));
    }
    return out;
}

} // namespace

std::vector<int> numerology::carriers() const
{
    std::vector<int> c;
    const int dc = fft_len / 2, half = used_carriers / 2;
    for (int i = dc - half; i < dc; i++)
        c.push_back(i);
    for (int i = dc + 1; i <= dc + half; i++)
        c.push_back(i);
    return c;
}

ofdm_fft_config numerology::fft_config(fft_direction direction, int channels) const
{
    ofdm_fft_config c;
    c.fft_len = fft_len;
    c.cp_lengths = cp_lengths;
    c.direction = direction;
    c.shift = true;
    c.carriers = carriers();
    c.scale = float(1.0 / std::sqrt(double(fft_len)));
    c.channels = channels;
    return c;
}

numerology numerology_preset(const std::string& name)
{
    numerology n;
    n.name = name;
    if (name == "small") {
        n.fft_len = 64;
        n.cp_lengths = { 16 };
        n.used_carriers = 48;
        n.sample_rate = 1e6;
    } else if (name == "fft512") {
        n.fft_len = 512;
        n.cp_lengths = { 36 };
        n.used_carriers = 400;
        n.sample_rate = 7.68e6;
    } else if (name == "lte20") {
        n.fft_len = 2048;
        n.cp_lengths = { 160, 144, 144, 144, 144, 144, 144 };
        n.used_carriers = 1200;
        n.sample_rate = 30.72e6;
    } else {
        throw std::invalid_argument("unknown numerology " + quoted_text(name) +
                                    " (expected small, fft512 or lte20)");
    }
    return n;
}

prbs::prbs(int order, std::uint32_t seed) : d_order(order)
{
    switch (order) {
    case 9: d_tap = 5; break;
    case 15: d_tap = 14; break;
    case 23: d_tap = 18; break;
    case 31: d_tap = 28; break;
    default: throw std::invalid_argument("prbs: order must be 9, 15, 23 or 31");
    }
    d_mask = (1u << order) - 1;
    d_state = seed & d_mask;
    if (d_state == 0)
        throw std::invalid_argument("prbs: the seed's low bits must not all be zero");
}

std::uint8_t prbs::next()
{
    // Fibonacci form: the feedback of stages `order` and `tap` is both the output and
    // the bit shifted in.
    const std::uint32_t bit = ((d_state >> (d_order - 1)) ^ (d_state >> (d_tap - 1))) & 1u;
    d_state = ((d_state << 1) | bit) & d_mask;
    return std::uint8_t(bit);
}

prbs prbs::following(int order, const std::uint8_t* last_bits)
{
    std::uint32_t state = 0;
    for (int i = 0; i < order && i < 32; i++)
        state = (state << 1) | (last_bits[i] & 1u);
    return prbs(order, state);
}

namespace {

// A GF(2)-linear map of `order`-bit registers, as the images of the unit registers.
std::uint32_t apply_map(const std::vector<std::uint32_t>& cols, std::uint32_t x)
{
    std::uint32_t y = 0;
    for (std::size_t i = 0; i < cols.size(); i++)
        if ((x >> i) & 1u)
            y ^= cols[i];
    return y;
}

std::vector<std::uint32_t> compose(const std::vector<std::uint32_t>& a,
                                   const std::vector<std::uint32_t>& b) // a after b
{
    std::vector<std::uint32_t> c(b.size());
    for (std::size_t i = 0; i < b.size(); i++)
        c[i] = apply_map(a, b[i]);
    return c;
}

} // namespace

std::vector<std::uint32_t> prbs::jump_map(std::uint64_t n) const
{
    // One step (next()): bit i moves to i + 1, and bits order-1 and tap-1 feed bit 0.
    std::vector<std::uint32_t> step(static_cast<std::size_t>(d_order)),
        result(static_cast<std::size_t>(d_order));
    for (int i = 0; i < d_order; i++) {
        step[std::size_t(i)] = (i + 1 < d_order ? 1u << (i + 1) : 0u) |
                               (i == d_order - 1 || i == d_tap - 1 ? 1u : 0u);
        result[std::size_t(i)] = 1u << i;
    }
    for (; n; n >>= 1) { // square and multiply
        if (n & 1u)
            result = compose(step, result);
        step = compose(step, step);
    }
    return result;
}

void prbs::apply_jump(const std::vector<std::uint32_t>& map)
{
    if (map.size() != std::size_t(d_order))
        throw std::invalid_argument("prbs: a jump map of another order");
    d_state = apply_map(map, d_state) & d_mask;
}

void prbs::fill(std::uint8_t* out, std::size_t n)
{
    for (std::size_t i = 0; i < n; i++)
        out[i] = next();
}

void unpack_bytes(const std::uint8_t* bytes, std::size_t n_bytes, std::uint8_t* bits)
{
    for (std::size_t i = 0; i < n_bytes; i++)
        for (int b = 0; b < 8; b++)
            bits[8 * i + b] = std::uint8_t((bytes[i] >> (7 - b)) & 1u);
}

void frame_format::validate() const
{
    if (num.fft_len < 16 || num.used_carriers < 2 || num.used_carriers % 2 != 0 ||
        num.used_carriers >= num.fft_len)
        throw std::invalid_argument("frame_format: used_carriers must be even and below "
                                    "fft_len");
    if (streams < 1 || streams > 8)
        throw std::invalid_argument("frame_format: streams must be 1 to 8");
    if (payload_symbols < 1 || payload_symbols > max_payload_symbols)
        throw std::invalid_argument("frame_format: payload_symbols must be 1 to " +
                                    std::to_string(max_payload_symbols) + ", not " +
                                    std::to_string(payload_symbols));
    if (pilot_interval < 0 || pilot_interval > max_payload_symbols)
        throw std::invalid_argument("frame_format: pilot_interval must be 0 (one pilot block) "
                                    "to " + std::to_string(max_payload_symbols) + ", not " +
                                    std::to_string(pilot_interval));
    if (symbols() > max_frame_symbols)
        throw std::invalid_argument("frame_format: " + std::to_string(symbols()) +
                                    " OFDM symbols, more than a frame may have (" +
                                    std::to_string(max_frame_symbols) +
                                    "): fewer payload symbols or a longer pilot_interval");
}

bool frame_format::is_payload_symbol(int symbol) const
{
    if (symbol <= streams || symbol >= symbols())
        return false; // the preamble, the first pilot block, outside the frame
    if (pilot_interval == 0)
        return true;
    // After the first block, periods of pilot_interval payload and then a block.
    const int period = pilot_interval + streams;
    return (symbol - 1 - streams) % period < pilot_interval &&
           symbol < pilot_block_start(pilot_blocks() - 1);
}

frame_format make_frame_format(const std::string& preset,
                               int streams,
                               const std::string& modulation,
                               int payload_symbols,
                               int pilot_interval)
{
    frame_format f;
    f.num = numerology_preset(preset);
    f.streams = streams;
    f.mod = parse_modulation(modulation);
    f.payload_symbols = payload_symbols;
    f.pilot_interval = pilot_interval;
    f.validate();
    return f;
}

int frame_format::data_carrier_count() const
{
    // Counted, not listed: payload_bits() is asked in work() calls, which allocate nothing.
    return num.used_carriers - tracking_carrier_count(num);
}

std::size_t frame_format::payload_bits() const
{
    return std::size_t(payload_symbols) * data_carrier_count() * streams *
           constellation(mod).bits_per_symbol();
}

int tracking_carrier_count(const numerology& num)
{
    const int U = num.used_carriers;
    int n = std::max(2, U / 12);
    while ((U - n) % 4 != 0) // data carriers a multiple of 4: whole bytes a frame
        n++;
    return n;
}

std::vector<int> tracking_carriers(const numerology& num)
{
    const int U = num.used_carriers, n = tracking_carrier_count(num);
    std::vector<int> t(std::size_t(n), 0);
    for (int j = 0; j < n; j++)
        t[std::size_t(j)] = (2 * j + 1) * U / (2 * n);
    return t;
}

std::vector<int> data_carriers(const numerology& num)
{
    const std::vector<int> t = tracking_carriers(num);
    std::vector<int> d;
    for (int c = 0, j = 0; c < num.used_carriers; c++) {
        if (j < int(t.size()) && t[std::size_t(j)] == c)
            j++;
        else
            d.push_back(c);
    }
    return d;
}

modulation detected_modulation(modulation mod)
{
    return mod == modulation::pi2_bpsk ? modulation::bpsk : mod;
}

std::complex<float> payload_turn_back(modulation mod, std::size_t d)
{
    return mod == modulation::pi2_bpsk && (d & 1) ? std::complex<float>(0, -1)
                                                  : std::complex<float>(1, 0);
}

std::size_t frame_format::samples() const
{
    std::size_t n = 0;
    for (int s = 0; s < symbols(); s++)
        n += num.fft_len +
             (num.cp_lengths.empty() ? 0 : num.cp_lengths[s % num.cp_lengths.size()]);
    return n;
}

namespace {
// The preamble's rule: carrier index `carrier` (FFT order, shifted) is used when an even
// distance from DC, so that the symbol's time samples repeat after half of it.
bool preamble_uses(const numerology& num, int carrier)
{
    return (carrier - num.fft_len / 2) % 2 == 0;
}
} // namespace

std::vector<std::complex<float>> preamble_carriers(const numerology& num, int stream)
{
    const std::vector<int> c = num.carriers();
    const auto seq = qpsk_sequence(preamble_seed + std::uint32_t(stream), c.size());
    std::vector<std::complex<float>> out(c.size());
    for (std::size_t i = 0; i < c.size(); i++)
        if (preamble_uses(num, c[i]))
            out[i] = seq[i] * float(std::sqrt(2.0));
    return out;
}

std::vector<int> preamble_empty_carriers(const numerology& num)
{
    const std::vector<int> c = num.carriers();
    std::vector<int> empty;
    for (std::size_t i = 0; i < c.size(); i++)
        if (!preamble_uses(num, c[i]))
            empty.push_back(int(i));
    return empty;
}

std::vector<std::complex<float>> pilot_carriers(const numerology& num, int stream)
{
    return qpsk_sequence(pilot_seed_base + std::uint32_t(stream), num.used_carriers);
}

std::complex<float> pilot_cover(int streams, int symbol, int stream)
{
    // The phase reduced exactly before the float conversion: s k mod streams.
    const int m = (symbol * stream) % streams;
    return std::complex<float>(std::polar(1.0, -2 * M_PI * double(m) / streams));
}

std::vector<std::complex<float>> frame_grid(const frame_format& frame,
                                            const std::uint8_t* payload_bits)
{
    frame.validate();
    const int K = frame.streams, S = frame.symbols(), U = frame.num.used_carriers;
    const constellation c(frame.mod);
    const int m = c.bits_per_symbol();
    std::vector<std::complex<float>> grid(std::size_t(K) * S * U);
    auto at = [&](int k, int s, int i) -> std::complex<float>& {
        return grid[(std::size_t(k) * S + s) * U + i];
    };
    for (int k = 0; k < K; k++) {
        const auto pre = preamble_carriers(frame.num, k);
        for (int i = 0; i < U; i++)
            at(k, 0, i) = pre[i];
        const auto pil = pilot_carriers(frame.num, k);
        for (int b = 0; b < frame.pilot_blocks(); b++) // every block the same pilots
            for (int s = 0; s < K; s++) {
                const std::complex<float> w = pilot_cover(K, s, k);
                for (int i = 0; i < U; i++)
                    at(k, frame.pilot_block_start(b) + s, i) = w * pil[i];
            }
    }
    const std::vector<int> track = tracking_carriers(frame.num), data = data_carriers(frame.num);
    const int D = int(data.size());
    for (int k = 0; k < K; k++) {
        const auto pil = pilot_carriers(frame.num, k);
        for (int s = 0; s < frame.payload_symbols; s++)
            for (int i : track)
                at(k, frame.payload_symbol_index(s), i) = pil[std::size_t(i)];
    }
    for (int s = 0; s < frame.payload_symbols; s++)
        for (int d = 0; d < D; d++)
            for (int k = 0; k < K; k++) {
                const int i = data[std::size_t(d)];
                const std::uint8_t* b =
                    payload_bits + ((std::size_t(s) * D + d) * K + k) * m;
                int index = 0;
                for (int j = 0; j < m; j++) {
                    if (b[j] > 1)
                        throw std::invalid_argument("frame_grid: payload bits must be 0 or 1");
                    index = index << 1 | b[j];
                }
                // pi/2-BPSK: symbol index s D + d of the stream (constellation::rotation)
                at(k, frame.payload_symbol_index(s), i) =
                    std::complex<float>(c.point(index) * c.rotation(std::size_t(s) * D + d));
            }
    return grid;
}

std::vector<std::complex<float>> frame_samples(const frame_format& frame,
                                               const std::uint8_t* payload_bits)
{
    const std::vector<std::complex<float>> grid = frame_grid(frame, payload_bits);
    const cpu_ofdm_fft ifft(frame.num.fft_config(fft_direction::inverse, frame.streams));
    const std::size_t per_stream = frame.samples();
    std::vector<std::complex<float>> out(std::size_t(frame.streams) * per_stream);
    ofdm_fft_io io;
    io.in = grid.data();
    io.in_stride = std::size_t(frame.symbols()) * frame.num.used_carriers;
    io.out = out.data();
    io.out_stride = per_stream;
    io.first_symbol = 0;
    io.nsym = frame.symbols();
    ifft.process(io);
    return out;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
