/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The LDPC decoder block: codewords of LLRs in, their information bits and a status tag
 * out, through the core's decoder engine (GPU with the CPU fallback); on the GPU the
 * LLRs are read where a GPU block upstream wrote them (a device-resident stream buffer)
 * or by DMA from the page-locked host buffer.
 */
#include "block_support/block_faults.h"
#include "block_support/device_stream_buffer.h"
#include "block_support/engine_logging.h"
#include "block_support/host_stand_in.h"
#include "block_support/stream_buffer_pins.h"

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>
#include <gnuradio/gpumimo/ldpc_decoder.h>
#include <gnuradio/buffer_double_mapped.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {

class ldpc_decoder_impl : public pinned_while_on_gpu<ldpc_decoder>, public device_buffer_user
{
public:
    // engine: made by make() first, since the input's buffer depends on where it runs.
    ldpc_decoder_impl(const core::ldpc_code& code,
                      const core::ldpc_engine_config& config,
                      early_engine<core::ldpc_decoder_engine>&& engine,
                      bool device_buffers)
        : gr::block("ldpc_decoder",
                    gr::io_signature::make(1, 1, sizeof(float),
                                           engine.on_gpu() && device_buffers
                                               ? device_stream_buffer::type
                                               : gr::buffer_double_mapped::type),
                    gr::io_signature::make(1, 1, sizeof(std::uint8_t))),
          d_encoder(code),
          d_n(code.n),
          d_k(d_encoder.k()),
          d_max(config.max_frames),
          d_device(config.device),
          d_key(pmt::intern("ldpc"))
    {
        d_engine = adopt_engine(d_logger, std::move(engine));
        set_output_multiple(d_k);
        set_tag_propagation_policy(TPP_DONT);
        d_bits.resize(d_max * std::size_t(d_n));
        d_iterations.resize(d_max);
        d_satisfied.resize(d_max);
    }

    int codeword_bits() const override { return d_n; }
    int info_bits() const override { return d_k; }
    std::string backend() const override { return d_engine->backend(); }
    std::uint64_t codewords() const override { return d_codewords; }
    std::uint64_t failed_codewords() const override { return d_failed; }
    double mean_iterations() const override
    {
        return d_codewords ? double(d_iteration_sum) / double(d_codewords) : 0.0;
    }
    std::uint64_t work_failures() const override { return d_faults.count(); }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        ninput_items_required[0] = std::max(1, noutput_items / d_k) * d_n;
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        const std::size_t frames = std::min({ std::size_t(ninput_items[0] / d_n),
                                              std::size_t(noutput_items / d_k),
                                              d_max });
        if (frames == 0)
            return 0;
        const float* llr = static_cast<const float*>(input_items[0]);
        auto* out = static_cast<std::uint8_t*>(output_items[0]);
        bool decoded = true;
        try {
            // LLRs on the GPU and the engine on the CPU (it fell back after a GPU
            // failure): through host memory.
            if (std::string(d_engine->backend()) != "cuda")
                llr = d_stand_in.input(0, llr, frames * std::size_t(d_n));
            core::ldpc_outputs o;
            o.bits = d_bits.data();
            o.iterations = d_iterations.data();
            o.satisfied = d_satisfied.data();
            d_engine->decode(llr, frames, o);
        } catch (...) { // the codewords leave as zeros, not ok; the stream goes on
            d_faults.caught("its " + std::to_string(frames) +
                            " codewords leave as zeros with ok false");
            decoded = false;
        }
        for (std::size_t f = 0; f < frames; f++) {
            std::uint8_t* info = out + f * d_k;
            const bool ok = decoded && d_satisfied[f];
            const int iterations = decoded ? d_iterations[f] : 0;
            if (decoded)
                d_encoder.extract(&d_bits[f * std::size_t(d_n)], info);
            else
                std::fill(info, info + d_k, 0);
            pmt::pmt_t status = pmt::make_dict();
            status = pmt::dict_add(status, pmt::intern("codeword"), pmt::from_uint64(d_codewords));
            status = pmt::dict_add(status, pmt::intern("ok"), pmt::from_bool(ok));
            status = pmt::dict_add(status, pmt::intern("iterations"), pmt::from_long(iterations));
            add_item_tag(0, nitems_written(0) + f * d_k, d_key, status, alias_pmt());
            d_codewords++;
            d_failed += !ok;
            d_iteration_sum += std::uint64_t(iterations);
        }
        consume_each(int(frames) * d_n);
        return int(frames) * d_k;
    }

private:
    int buffer_device() const override { return d_device; }

    const core::ldpc_encoder d_encoder; // where the information bits sit in a codeword
    const int d_n, d_k;
    const std::size_t d_max;
    const int d_device;
    host_stand_in d_stand_in; // a device input's host copy for the CPU engine
    const pmt::pmt_t d_key;
    std::unique_ptr<core::ldpc_decoder_engine> d_engine;
    std::vector<std::uint8_t> d_bits, d_satisfied;
    std::vector<int> d_iterations;
    std::uint64_t d_codewords = 0, d_failed = 0, d_iteration_sum = 0;
    rate_limited_log d_log{ d_logger };
    work_faults d_faults{ d_log };
};

ldpc_decoder::sptr ldpc_decoder::make(const std::string& code,
                                      const std::string& algorithm,
                                      int max_iterations,
                                      const std::string& backend,
                                      int device,
                                      int max_codewords,
                                      bool device_buffers)
{
    if (max_codewords < 1 || max_codewords > 65536)
        throw std::invalid_argument("ldpc_decoder: max_codewords must be 1 to 65536");
    core::ldpc_engine_config c;
    c.decoder.algorithm = core::ldpc_algorithm_from_string(algorithm);
    c.decoder.max_iterations = max_iterations;
    c.decoder.validate();
    c.max_frames = std::size_t(max_codewords);
    c.device = device;
    const core::ldpc_code parsed = core::ldpc_code_by_name(code);
    auto engine = make_early_engine([&](std::string* why) {
        return core::make_ldpc_decoder_engine(parsed, c, backend, why);
    });
    return gnuradio::make_block_sptr<ldpc_decoder_impl>(parsed, c, std::move(engine),
                                                         device_buffers);
}

} // namespace gpumimo
} // namespace gr
