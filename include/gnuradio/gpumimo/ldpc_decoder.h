/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_LDPC_DECODER_H
#define INCLUDED_GPUMIMO_LDPC_DECODER_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief LDPC decoding of a stream of LLRs (docs/ldpc.md), on the GPU with the CPU
 * reference as fallback.
 * \ingroup gpumimo
 *
 * Input: float LLRs in the core's convention (positive means 1: the detectors' and the
 * LLR sink's), n per codeword, codeword after codeword. Output: the k information bits of
 * each codeword (unsigned char, 0 or 1), and on each codeword's first bit an "ldpc" tag,
 * a dict of codeword (count from 0), ok (decoded: the decisions satisfy every check and
 * no a-posteriori LLR is exactly 0) and iterations. Non-finite LLRs are erasures; a
 * codeword of no information (every LLR 0 or not finite) is never ok.
 *
 * code: "wimax_<n>" (IEEE 802.16e rate 1/2, n = 576 to 2304 in steps of 96),
 * "nr_bg<1|2>_z<Z>[_rows<r>]" (5G NR, core/ldpc/nr_ldpc.h) or the path of an alist file; algorithm "min_sum" (normalised, 0.75), "min_sum_half" (the same
 * in half precision: the GPU decodes two codewords per instruction) or "sum_product";
 * max_iterations with early termination. backend auto, cuda or cpu (auto: the GPU when
 * one is usable, else the CPU with a logged warning; a failed GPU call is logged and
 * redone on the CPU, which then stays). Up to max_codewords codewords go to the decoder
 * in one call.
 *
 * device_buffers: where the engine runs on the GPU, the input is a device-resident
 * stream buffer, so that LLRs from a GPU block of this module (mimo_detector on the GPU)
 * are decoded where they lie, never crossing PCIe; from a CPU block GNU Radio gives it
 * host memory as usual. false: a host buffer, so that the block upstream can also feed
 * a CPU block from the same port, which GNU Radio refuses for a device buffer.
 */
class GPUMIMO_API ldpc_decoder : virtual public gr::block
{
public:
    typedef std::shared_ptr<ldpc_decoder> sptr;

    static sptr make(const std::string& code = "wimax_2304",
                     const std::string& algorithm = "min_sum",
                     int max_iterations = 10,
                     const std::string& backend = "auto",
                     int device = 0,
                     int max_codewords = 256,
                     bool device_buffers = true);

    /*! n: LLRs per codeword. */
    virtual int codeword_bits() const = 0;
    /*! k: information bits per codeword. */
    virtual int info_bits() const = 0;
    /*! "cuda" or "cpu": where the next call runs. */
    virtual std::string backend() const = 0;
    virtual std::uint64_t codewords() const = 0;
    /*! Codewords not decoded after max_iterations (a check failing or a bit undecided). */
    virtual std::uint64_t failed_codewords() const = 0;
    /*! Mean iterations per codeword so far. */
    virtual double mean_iterations() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger; the
     *  codewords at hand leave as zeros with ok false (docs/reliability.md). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
