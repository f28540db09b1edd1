/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_H
#define INCLUDED_GPUMIMO_CORE_FRAME_H

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief The OFDM numerology of a MIMO-OFDM frame (docs/frame.md).
 *
 * Carriers are numbered as the OFDM FFT block numbers them with fftshift on: index
 * fft_len / 2 is DC. The used carriers are used_carriers / 2 on each side of DC, DC
 * itself left empty.
 */
struct numerology {
    std::string name;
    int fft_len = 0;
    std::vector<int> cp_lengths; //!< repeating pattern, as ofdm_fft_config
    int used_carriers = 0;       //!< even, < fft_len
    double sample_rate = 0;      //!< samples per second (the carrier spacing times fft_len)

    /*! The used carriers' indices, ascending. */
    std::vector<int> carriers() const;
    /*! The OFDM FFT configuration of this numerology for `channels` channels: shift on,
     *  the used carriers, fc32 both sides, scale 1 / sqrt(fft_len) each way (so that a
     *  unit-energy carrier value gives unit-energy carrier values back). */
    ofdm_fft_config fft_config(fft_direction direction, int channels) const;
};

/*! "small" (64 points, 48 used, CP 16: for fast tests), "fft512" (512 points, 400 used,
 *  CP 36, 7.68 Msample/s: the FFT paper's size) or "lte20" (2048 points, 1200 used, LTE
 *  normal CP {160, 144 x 6}, 30.72 Msample/s); std::invalid_argument otherwise. */
numerology numerology_preset(const std::string& name);

/*!
 * \brief Maximal-length pseudo-random bit sequences (Fibonacci LFSR, ITU-T O.150
 * polynomials): order 9 (x^9 + x^5 + 1), 15 (x^15 + x^14 + 1), 23 (x^23 + x^18 + 1) or
 * 31 (x^31 + x^28 + 1); period 2^order - 1. The seed is the initial register (its low
 * `order` bits, not all zero).
 */
class prbs
{
public:
    prbs(int order, std::uint32_t seed);
    /*! The next bit (0 or 1). */
    std::uint8_t next();
    /*! n bits into out. */
    void fill(std::uint8_t* out, std::size_t n);
    /*! The sequence that continues `order` consecutive output bits (a Fibonacci LFSR
     *  shifts its output in: those bits are its state), as a bit-error tester
     *  synchronises to a received stream. std::invalid_argument when they are all 0. */
    static prbs following(int order, const std::uint8_t* last_bits);

    /*! The register: the next `order` output bits, first in its highest bit. */
    std::uint32_t state() const { return d_state; }
    /*! The register after n more output bits as a GF(2)-linear map of the register now:
     *  column i (of `order`) is the image of register bit i. apply_jump() applies it,
     *  so a receiver can jump ahead a whole frame in `order` operations. */
    std::vector<std::uint32_t> jump_map(std::uint64_t n) const;
    /*! This sequence moved on as jump_map(n) says, without producing the bits. */
    void apply_jump(const std::vector<std::uint32_t>& map);

private:
    int d_order, d_tap;
    std::uint32_t d_state, d_mask;
};

/*! The bits of n_bytes bytes into bits (0 or 1, 8 * n_bytes of them), most significant
 *  bit of each byte first: the order in which mimo_ofdm_tx's payload "bytes" takes a
 *  byte stream (GNU Radio's packed bytes, as numpy.unpackbits gives them). */
void unpack_bytes(const std::uint8_t* bytes, std::size_t n_bytes, std::uint8_t* bits);

/*!
 * \brief A MIMO-OFDM frame for 1..8 transmit streams (docs/frame.md, format version
 * frame_format_version): OFDM symbol 0 the preamble (every stream, known QPSK on the
 * even carriers, so that its time samples repeat after half a symbol: timing and
 * frequency synchronisation); symbols 1..Nt the pilots (every stream in every one,
 * known QPSK on every used carrier under an orthogonal cover across the Nt symbols:
 * least-squares channel estimates); then payload_symbols symbols of the streams' QAM
 * payload on the data carriers, every stream's pilot value on the tracking carriers
 * (tracking_carriers(): the receiver measures each payload symbol's common phase).
 *
 * Payload bit order: bit b of stream k on data carrier d (the d-th of data_carriers())
 * of payload symbol s is bit ((s * D + d) * streams + k) * m + b, D data carriers, m
 * bits per symbol: the order of the core detectors' LLRs (one vector of streams per
 * resource element, carriers fastest).
 */
/*! The most payload symbols a frame may have (a 5G NR slot has 14): a frame of the
 *  largest numerology (lte20) is then at most 2.2 Msample per stream and, with 8
 *  streams of 256-QAM, 77 Mbit, so that what a frame description declares is bounded
 *  before anything is allocated for it. */
constexpr int max_payload_symbols = 1000;

/*! The most OFDM symbols a frame may have, pilot blocks included (frame_format::symbols()). */
constexpr int max_frame_symbols = 2 * max_payload_symbols;

struct frame_format {
    numerology num;
    int streams = 1;
    modulation mod = modulation::qpsk;
    int payload_symbols = 1;
    /*! Time tracking (format 4, docs/frame.md "Pilot blocks"): at most this many payload
     *  symbols between two pilot blocks, a block after the last payload symbol too, so
     *  that every payload symbol's channel is interpolated in time between the blocks
     *  around it. 0: one pilot block, before the payload (format 3's layout). */
    int pilot_interval = 0;

    /*! Throws std::invalid_argument naming the first field out of range
     *  (payload_symbols 1..max_payload_symbols, streams 1..8, pilot_interval
     *  0..max_payload_symbols, symbols() <= max_frame_symbols). */
    void validate() const;
    /*! Pilot blocks (streams pilot symbols each, the same covered pilots): 1 without
     *  time tracking, else one before every pilot_interval payload symbols and one after
     *  the last, 1 + ceil(payload_symbols / pilot_interval). */
    int pilot_blocks() const
    {
        return pilot_interval > 0 ? 1 + (payload_symbols + pilot_interval - 1) / pilot_interval : 1;
    }
    int pilot_symbols() const { return streams * pilot_blocks(); }
    /*! OFDM symbols in a frame: preamble, pilot blocks, payload. */
    int symbols() const { return 1 + pilot_symbols() + payload_symbols; }
    /*! The OFDM symbol (index in the frame) where pilot block b (0..pilot_blocks()-1)
     *  starts. */
    int pilot_block_start(int b) const
    {
        return 1 + b * streams + (pilot_interval > 0 ? std::min(b * pilot_interval, payload_symbols) : 0);
    }
    /*! The OFDM symbol (index in the frame) of payload symbol s. */
    int payload_symbol_index(int s) const
    {
        return 1 + streams * (1 + (pilot_interval > 0 ? s / pilot_interval : 0)) + s;
    }
    /*! Whether OFDM symbol `symbol` of the frame carries payload. */
    bool is_payload_symbol(int symbol) const;
    /*! Data carriers per payload symbol: the used carriers less the tracking ones. */
    int data_carrier_count() const;
    /*! Payload bits in a frame. */
    std::size_t payload_bits() const;
    /*! Time samples in a frame, cyclic prefixes included (the pattern starting at the
     *  preamble). */
    std::size_t samples() const;
};

/*! The frame of numerology `preset`, `streams` streams, `modulation` ("qpsk",
 *  "16qam", ...) and `payload_symbols` payload symbols, validated; std::invalid_argument
 *  for any bad argument. */
frame_format make_frame_format(const std::string& preset,
                               int streams,
                               const std::string& modulation,
                               int payload_symbols,
                               int pilot_interval = 0);

/*! The frame format this receiver reads and the transmitter writes (docs/frame.md,
 *  "Versions"): 4 since 2026-11-28 (pilot blocks spread over the frame,
 *  frame_format::pilot_interval; with an interval of 0 the layout of 3, whose
 *  recordings still play); 3 since 2026-11-24 (tracking pilots in every payload symbol); 2 had
 *  every stream in the preamble and in every pilot symbol under an orthogonal cover and
 *  data on every used carrier; 1 one stream per preamble and pilot symbol. Recordings
 *  name theirs in NAME.frame.json ("frame_version"). */
constexpr int frame_format_version = 4;

/*! The tracking carriers of a payload symbol (indices into the used carriers,
 *  ascending): n of them, the least n >= max(2, used_carriers / 12) that leaves a
 *  multiple of 4 data carriers (so that a frame of 2 or more bits per symbol holds whole
 *  bytes), the j-th at (2 j + 1) used_carriers / (2 n), spread evenly over the band.
 *  Every stream sends its pilot value (pilot_carriers()) there in every payload symbol. */
std::vector<int> tracking_carriers(const numerology& num);
/*! How many tracking_carriers() there are (n), without listing them. */
int tracking_carrier_count(const numerology& num);

/*! The used carriers that carry payload (indices into the used carriers, ascending):
 *  all but the tracking carriers. */
std::vector<int> data_carriers(const numerology& num);

/*! The modulation the detectors see in a frame's payload: pi/2-BPSK, turned back by
 *  payload_turn_back(), is BPSK; every other modulation is itself. */
modulation detected_modulation(modulation mod);
/*! What a receiver multiplies the values on data carrier d (its index among the data
 *  carriers) by before detecting them as detected_modulation(mod): pi/2-BPSK turns a
 *  stream's symbols of odd index i = s D + d by j (TS 38.211 5.1.1; D data carriers, a
 *  multiple of 4, so i is odd where d is), and these take -j; 1 elsewhere. */
std::complex<float> payload_turn_back(modulation mod, std::size_t d);

/*! Stream k's preamble carrier values (used carriers): unit-energy QPSK (a PRBS-15
 *  seeded by the stream) times sqrt(2) on the carriers an even distance from DC, 0 on
 *  the others. Every stream sends its own. */
std::vector<std::complex<float>> preamble_carriers(const numerology& num, int stream = 0);

/*! The used carriers (indices into them, ascending) the preamble leaves empty, an odd
 *  distance from DC: where the receiver measures the noise. */
std::vector<int> preamble_empty_carriers(const numerology& num);

/*! Stream k's pilot carrier values (used carriers): unit-energy QPSK from a PRBS-15
 *  seeded by the stream. */
std::vector<std::complex<float>> pilot_carriers(const numerology& num, int stream);

/*! The orthogonal cover of the pilot symbols: in pilot symbol s (0..streams-1) stream k
 *  sends pilot_cover(streams, s, k) times its pilot carriers, e^{-2 pi i s k / streams}
 *  (the rows of the DFT matrix: orthogonal for any number of streams). The receiver's
 *  least-squares estimate of column k averages the streams pilot symbols against it,
 *  so its error is N0 / streams, not N0. */
std::complex<float> pilot_cover(int streams, int symbol, int stream);

/*!
 * The frame's carrier values of every stream, [stream][symbol][used carrier], from
 * frame.payload_bits() payload bits (0 or 1 each): the inverse OFDM FFT's input, one
 * channel per stream.
 */
std::vector<std::complex<float>> frame_grid(const frame_format& frame,
                                            const std::uint8_t* payload_bits);

/*!
 * The frame's time samples of every stream, [stream][frame.samples()]: frame_grid
 * through the CPU reference's inverse OFDM FFT (numerology::fft_config: cyclic prefixes,
 * scale 1/sqrt(fft_len)). The transmitter's reference; the GNU Radio transmitter runs
 * the same through the OFDM FFT core.
 */
std::vector<std::complex<float>> frame_samples(const frame_format& frame,
                                               const std::uint8_t* payload_bits);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
