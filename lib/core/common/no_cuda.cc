/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GPU detector in a build without CUDA: it exists, says why it cannot run, and
 * throws if made anyway, so that callers need no #ifdef.
 */
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/apsm/gpu_apsm.h>
#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>
#include <gnuradio/gpumimo/core/ofdm/gpu_ofdm_fft.h>
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

struct gpu_detector::impl {
};

gpu_detector::gpu_detector(algorithm,
                           modulation,
                           int,
                           int,
                           const detector_params&,
                           int,
                           gpu_precision,
                           std::size_t,
                           int)
{
    throw std::runtime_error(not_built);
}
gpu_detector::~gpu_detector() = default;
int gpu_detector::bits_per_vector() const { return 0; }
int gpu_detector::device() const { return -1; }
void gpu_detector::detect(const mimo_batch&, float*)
{
    throw std::runtime_error(not_built);
}
void gpu_detector::submit(const mimo_batch&, float*) { throw std::runtime_error(not_built); }
void gpu_detector::finish() { throw std::runtime_error(not_built); }
void gpu_detector::detect_device(const mimo_batch&, float*, void*)
{
    throw std::runtime_error(not_built);
}
void gpu_detector::check_device_errors(void*) { throw std::runtime_error(not_built); }

struct gpu_ofdm_fft::impl {
};
gpu_ofdm_fft::gpu_ofdm_fft(const ofdm_fft_config&,
                           const std::vector<int>&,
                           std::size_t,
                           int,
                           fft_fusion)
{
    throw std::runtime_error(not_built);
}
gpu_ofdm_fft::~gpu_ofdm_fft() = default;
const ofdm_fft_layout& gpu_ofdm_fft::layout() const
{
    throw std::runtime_error(not_built);
}
std::size_t gpu_ofdm_fft::symbols_per_chunk() const { return 0; }
bool gpu_ofdm_fft::fused() const { return false; }
fft_fusion gpu_ofdm_fft::path() const { return fft_fusion::kernels; }
const std::string& gpu_ofdm_fft::fusion_note() const
{
    throw std::runtime_error(not_built);
}
std::size_t gpu_ofdm_fft::process(const ofdm_fft_io&)
{
    throw std::runtime_error(not_built);
}
void gpu_ofdm_fft::submit(const ofdm_fft_io&) { throw std::runtime_error(not_built); }
std::size_t gpu_ofdm_fft::finish() { throw std::runtime_error(not_built); }
std::size_t gpu_ofdm_fft::process_device(const ofdm_fft_io&, void*)
{
    throw std::runtime_error(not_built);
}
void gpu_ofdm_fft::enqueue_device(const ofdm_fft_io&, void*, unsigned*)
{
    throw std::runtime_error(not_built);
}

struct gpu_apsm_detector::impl {
};
gpu_apsm_detector::gpu_apsm_detector(const std::vector<apsm_filter>&, std::size_t, int)
{
    throw std::runtime_error(not_built);
}
gpu_apsm_detector::~gpu_apsm_detector() = default;
int gpu_apsm_detector::users() const { return 0; }
void gpu_apsm_detector::detect(const std::complex<float>*, std::size_t, std::complex<float>*)
{
    throw std::runtime_error(not_built);
}
float gpu_apsm_detector::last_kernel_ms() const { return 0; }
void gpu_apsm_detector::submit(const std::complex<float>*, std::size_t, std::complex<float>*)
{
    throw std::runtime_error(not_built);
}
void gpu_apsm_detector::finish() { throw std::runtime_error(not_built); }
gpu_apsm_detector::gpu_apsm_detector(int, int, std::size_t, std::size_t, int)
{
    throw std::runtime_error(not_built);
}
void gpu_apsm_detector::set_filters(const std::vector<apsm_filter>&)
{
    throw std::runtime_error(not_built);
}

struct gpu_apsm_trainer::impl {
};
gpu_apsm_trainer::gpu_apsm_trainer(const apsm_params&, int, int, std::size_t, int)
{
    throw std::runtime_error(not_built);
}
gpu_apsm_trainer::~gpu_apsm_trainer() = default;
std::vector<apsm_filter>
gpu_apsm_trainer::train(const std::complex<float>*, std::size_t, const std::complex<float>*)
{
    throw std::runtime_error(not_built);
}
float gpu_apsm_trainer::last_kernel_ms() const { return 0; }
gpu_apsm_trainer::stage_ms gpu_apsm_trainer::last_stage_ms() const { return {}; }

struct gpu_fused_receiver::impl {
};
gpu_fused_receiver::gpu_fused_receiver(const fused_receiver_config&, int, std::size_t, int)
{
    throw std::runtime_error(not_built);
}
gpu_fused_receiver::~gpu_fused_receiver() = default;
const fused_receiver_config& gpu_fused_receiver::config() const
{
    throw std::runtime_error(not_built);
}
std::size_t gpu_fused_receiver::bits_per_frame() const { return 0; }
std::size_t gpu_fused_receiver::frames_per_chunk() const { return 0; }
fused_receiver_report gpu_fused_receiver::process(const std::complex<float>* const*,
                                                  std::size_t,
                                                  float*,
                                                  float*)
{
    throw std::runtime_error(not_built);
}

struct gpu_ldpc_decoder::impl {
};
gpu_ldpc_decoder::gpu_ldpc_decoder(const ldpc_code&, const ldpc_decoder_config&, std::size_t, int)
{
    throw std::runtime_error(not_built);
}
gpu_ldpc_decoder::~gpu_ldpc_decoder() = default;
std::size_t gpu_ldpc_decoder::max_frames() const { return 0; }
std::size_t gpu_ldpc_decoder::decode(const float*, std::size_t, const ldpc_outputs&)
{
    throw std::runtime_error(not_built);
}
std::size_t
gpu_ldpc_decoder::decode(const std::int8_t*, float, std::size_t, const ldpc_outputs&)
{
    throw std::runtime_error(not_built);
}
void gpu_ldpc_decoder::decode_device(const float*, std::size_t, const ldpc_outputs&)
{
    throw std::runtime_error(not_built);
}
void gpu_ldpc_decoder::decode_device(const std::int8_t*, float, std::size_t, const ldpc_outputs&)
{
    throw std::runtime_error(not_built);
}
void gpu_ldpc_decoder::synchronize() { throw std::runtime_error(not_built); }
float gpu_ldpc_decoder::last_kernel_ms() const { return 0.0f; }

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
