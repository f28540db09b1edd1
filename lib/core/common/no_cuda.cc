/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A build without CUDA: the engine factories' GPU makers (detail/gpu_engines.h), the
 * GPU support query and the link simulator's GPU engine exist, and refuse, so that
 * callers need no #ifdef. Nothing else names a GPU class outside cuda/.
 */
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
const char* const not_built = "gr-gpumimo was built without CUDA";
}

bool gpu_supports(
    algorithm, modulation, int, int, const detector_params&, std::string* why)
{
    if (why)
        *why = not_built;
    return false;
}

namespace detail {
std::unique_ptr<detector_engine> make_gpu_detector_engine(const detector_config&, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<ofdm_fft_engine>
make_gpu_ofdm_fft_engine(const ofdm_fft_config&, const ofdm_fft_options&, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<apsm_engine> make_gpu_apsm_engine(const apsm_engine_config&, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<ldpc_decoder_engine>
make_gpu_ldpc_decoder_engine(const ldpc_code&, const ldpc_engine_config&, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<fused_receiver_engine>
make_gpu_fused_receiver_engine(const fused_receiver_config&, int, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<payload_detector> make_gpu_payload_detector(const payload_detector_config&,
                                                            std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<smoothing_engine> make_gpu_smoothing_engine(
    const numerology&, channel_estimator, int, int, double, std::size_t, int, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<chanest_engine> make_gpu_chanest_engine(
    const frame_format&, channel_estimator, int, std::size_t, int, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<stream_receiver_engine> make_gpu_stream_receiver_engine(
    const fused_receiver_config&, std::size_t, std::size_t, int, std::string*)
{
    throw std::runtime_error(not_built);
}
std::unique_ptr<frame_sync_engine> make_gpu_frame_sync_engine(
    const frame_format&, int, std::size_t, std::size_t, int, std::string*)
{
    throw std::runtime_error(not_built);
}
} // namespace detail

std::unique_ptr<link_engine> make_gpu_link_engine(std::shared_ptr<const link_setup>)
{
    throw std::runtime_error(not_built);
}
void make_gpu_link_frames(std::shared_ptr<const link_setup>,
                          std::uint32_t,
                          std::uint64_t,
                          std::size_t,
                          float,
                          std::uint8_t*,
                          std::uint8_t*,
                          cf32*,
                          cf32*)
{
    throw std::runtime_error(not_built);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
