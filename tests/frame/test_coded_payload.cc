/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LDPC codewords in the frame's payload (core::coded_payload): the interleaver is the
 * permutation docs/frame.md defines; encode, de-interleave and decode give the
 * information back for every built-in code and an alist code; and the whole chain
 * (frame_samples, a 3-tap channel with a carrier offset, the CPU fused receiver) decodes
 * every frame error-free at high SNR.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/payload_decoder.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

frame_format make(int K, const char* mod, int payload)
{
    return make_frame_format("small", K, mod, payload);
}

// Hard-decision LLRs of bits (positive means 1), magnitude 4.
std::vector<float> clean_llrs(const std::vector<std::uint8_t>& bits)
{
    std::vector<float> l(bits.size());
    for (std::size_t i = 0; i < bits.size(); i++)
        l[i] = bits[i] ? 4.0f : -4.0f;
    return l;
}

// Decodes one frame's payload LLRs: the information bits and the codewords whose
// decisions satisfy every check.
std::size_t decode_frame(const coded_payload& cp,
                         const float* payload_llr,
                         std::vector<std::uint8_t>& info)
{
    std::vector<float> cw(std::size_t(cp.codewords()) * cp.n());
    cp.deinterleave(payload_llr, cw.data());
    cpu_ldpc_decoder dec(cp.code(), ldpc_decoder_config());
    std::vector<std::uint8_t> bits(cw.size());
    ldpc_outputs out;
    out.bits = bits.data();
    const std::size_t ok = dec.decode(cw.data(), std::size_t(cp.codewords()), out);
    info.resize(cp.info_bits());
    for (int c = 0; c < cp.codewords(); c++)
        cp.encoder().extract(&bits[std::size_t(c) * cp.n()], &info[std::size_t(c) * cp.k()]);
    return ok;
}

} // namespace

TEST(CodedPayload, TheInterleaverIsTheDocumentedPermutation)
{
    const frame_format f = make(2, "16qam", 10); // 44 x 2 x 4 x 10 = 3520 bits
    for (std::uint64_t seed : { 1ull, 77ull }) {
        const coded_payload cp(f, "wimax_576", seed);
        EXPECT_EQ(cp.codewords(), 6);
        EXPECT_EQ(cp.n(), 576);
        EXPECT_EQ(cp.k(), 288);
        EXPECT_EQ(cp.info_bits(), 6u * 288);
        // docs/frame.md's rule, written out again: Fisher-Yates from the last position,
        // j = rng() mod (i + 1), std::mt19937_64 seeded by the interleaver seed.
        std::vector<std::uint32_t> want(6 * 576);
        for (std::size_t i = 0; i < want.size(); i++)
            want[i] = std::uint32_t(i);
        std::mt19937_64 rng(seed);
        for (std::size_t i = want.size() - 1; i > 0; i--)
            std::swap(want[i], want[rng() % (i + 1)]);
        for (std::size_t i = 0; i < want.size(); i++)
            ASSERT_EQ(cp.position(i), want[i]) << i;
    }
    EXPECT_NE(coded_payload(f, "wimax_576", 1).position(0),
              coded_payload(f, "wimax_576", 2).position(0));
}

TEST(CodedPayload, EveryBuiltInCodeRoundTrips)
{
    auto rng = make_rng(2301);
    const frame_format f = make(4, "16qam", 10); // 7040 payload bits
    std::vector<std::string> names;
    for (int n = 576; n <= 2304; n += 96)
        names.push_back("wimax_" + std::to_string(n));
    // 5G NR: BG2 whole at Z = 64 (n = 3328), BG1 at rate 1/2 (n = 2288), the cores of the
    // smallest lifting sizes.
    for (const char* nr : { "nr_bg2_z64", "nr_bg1_z52_rows22", "nr_bg1_z15_rows4", "nr_bg2_z2_rows4" })
        names.push_back(nr);
    const char* dir = std::getenv("GPUMIMO_LDPC_DIR");
    const std::string alist = std::string(dir ? dir : GPUMIMO_LDPC_DEFAULT_DIR) + "/wimax_2304_r12.alist";
    if (std::ifstream(alist).good())
        names.push_back(alist);
    for (const std::string& name : names) {
        const coded_payload cp(f, name);
        ASSERT_EQ(cp.codewords(), int(7040 / cp.n())) << name;
        std::vector<std::uint8_t> info(cp.info_bits()), payload(cp.payload_bits(), 7);
        for (auto& b : info)
            b = std::uint8_t(rng() & 1);
        cp.encode(info.data(), payload.data());
        // Each codeword, gathered back through the interleaver, satisfies every check.
        for (int c = 0; c < cp.codewords(); c++) {
            std::vector<std::uint8_t> word(static_cast<std::size_t>(cp.n()));
            for (int b = 0; b < cp.n(); b++)
                word[b] = payload[cp.position(std::size_t(c) * cp.n() + b)];
            ASSERT_TRUE(cp.code().satisfied(word.data())) << name << " codeword " << c;
        }
        // The bits no codeword uses are 0.
        std::vector<bool> used(cp.payload_bits(), false);
        for (std::size_t i = 0; i < std::size_t(cp.codewords()) * cp.n(); i++)
            used[cp.position(i)] = true;
        for (std::size_t i = 0; i < used.size(); i++)
            if (!used[i])
                ASSERT_EQ(payload[i], 0) << name << " " << i;
        std::vector<std::uint8_t> back;
        EXPECT_EQ(decode_frame(cp, clean_llrs(payload).data(), back), std::size_t(cp.codewords()));
        EXPECT_EQ(back, info) << name;
    }
}

TEST(CodedPayload, BadCodesAreRefused)
{
    const frame_format f = make(1, "qpsk", 2); // 176 bits: no 802.16e code fits
    EXPECT_THROW(coded_payload(f, "wimax_576"), std::invalid_argument);
    EXPECT_THROW(coded_payload(make(2, "16qam", 10), "wimax_575"), std::invalid_argument);
    EXPECT_ANY_THROW(coded_payload(make(2, "16qam", 10), "/no/such/code.alist"));
    const coded_payload cp(make(2, "16qam", 10), "wimax_576");
    std::vector<std::uint8_t> info(cp.info_bits(), 2), payload(cp.payload_bits());
    EXPECT_THROW(cp.encode(info.data(), payload.data()), std::invalid_argument);
}

// The chain: encoded frames through a 3-tap channel with a carrier offset left in
// (tracking takes it out) at 25 dB, the CPU fused receiver, de-interleaved and decoded:
// every codeword and every information bit right.
TEST(CodedPayload, TheChainDecodesEveryFrameAtHighSnr)
{
    auto rng = make_rng(2302);
    for (const char* mod : { "qpsk", "16qam" }) {
      for (const char* code : { "wimax_1152", "nr_bg1_z24_rows24" }) { // n = 1152 and 1104
        const frame_format f = make(2, mod, 12);
        const coded_payload cp(f, code);
        const int rx = 4;
        const std::size_t frames = 4, n = f.samples();
        fused_receiver_config c;
        c.frame = f;
        c.rx = rx;
        c.algo = algorithm::mmse;
        cpu_fused_receiver receiver(c);
        for (std::size_t fr = 0; fr < frames; fr++) {
            std::vector<std::uint8_t> info(cp.info_bits()), payload(cp.payload_bits());
            for (auto& b : info)
                b = std::uint8_t(rng() & 1);
            cp.encode(info.data(), payload.data());
            const std::vector<cf> tx = frame_samples(f, payload.data());
            channel_params p;
            p.tx = f.streams;
            p.rx = rx;
            p.tap_powers = { 0.7, 0.2, 0.1 };
            p.snr_db = 25;
            p.cfo = 0.01 / 64;
            p.seed = rng();
            mimo_channel ch(p);
            const std::vector<cf> y = ch.apply(tx.data(), n);
            std::vector<const cf*> in;
            for (int r = 0; r < rx; r++)
                in.push_back(&y[std::size_t(r) * n]);
            std::vector<float> llr(f.payload_bits(), NAN);
            receiver.process(in.data(), 1, llr.data());
            std::vector<std::uint8_t> back;
            EXPECT_EQ(decode_frame(cp, llr.data(), back), std::size_t(cp.codewords()))
                << mod << " " << code << " " << fr;
            EXPECT_EQ(back, info) << mod << " " << code << " frame " << fr;
        }
      }
    }
}

// payload_decoder (the sinks' decoder, on the CPU here): the information back, and its
// report: every codeword satisfied, the raw errors exactly the signs flipped.
TEST(CodedPayload, ThePayloadDecoderReportsWhatItSaw)
{
    auto rng = make_rng(2303);
    const coded_payload cp(make(2, "16qam", 10), "wimax_576");
    payload_decoder dec(cp, ldpc_decoder_config(), "cpu");
    EXPECT_STREQ(dec.backend(), "cpu");
    std::vector<std::uint8_t> info(cp.info_bits()), payload(cp.payload_bits());
    for (auto& b : info)
        b = std::uint8_t(rng() & 1);
    cp.encode(info.data(), payload.data());
    std::vector<float> llr = clean_llrs(payload);
    std::size_t flipped = 0;
    for (std::size_t i = 0; i < std::size_t(cp.codewords()) * cp.n(); i += 97) { // ~6 per codeword
        llr[cp.position(i)] = -0.5f * llr[cp.position(i)];
        flipped++;
    }
    std::vector<std::uint8_t> back(cp.info_bits(), 9);
    const payload_decode_report r = dec.decode(llr.data(), back.data());
    EXPECT_EQ(back, info);
    EXPECT_EQ(r.codewords, std::size_t(cp.codewords()));
    EXPECT_EQ(r.satisfied, r.codewords);
    EXPECT_EQ(r.raw_bits, std::uint64_t(cp.codewords()) * cp.n());
    EXPECT_EQ(r.raw_errors, flipped);
    EXPECT_GE(r.iterations, r.codewords); // at least one each
}
