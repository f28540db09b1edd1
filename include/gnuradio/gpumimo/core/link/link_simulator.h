/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LINK_SIMULATOR_H
#define INCLUDED_GPUMIMO_CORE_LINK_SIMULATOR_H

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/detect/gpu_detector.h>
#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/link/link_random.h>

#include <cstdint>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! The channels of the link simulator (docs/link_simulation.md). */
enum class link_channel {
    awgn,     //!< H = I (nt = nr): the detector sees only noise
    rayleigh, //!< i.i.d. CN(0, 1) entries, a new H every coherence_vectors vectors
    tdl,      //!< a tapped delay line seen through OFDM (see link_config::tap_powers)
};
link_channel parse_link_channel(const std::string& name); //!< "awgn", "rayleigh", "tdl"
std::string to_string(link_channel c);

/*!
 * \brief What one link simulation runs: code, mapping, channel, detector, stopping rule.
 *
 * A frame is k random information bits, LDPC-encoded into n bits (uncoded: the k = n =
 * uncoded_frame_bits bits themselves), padded with random bits to V = ceil(n / (nt m))
 * whole vectors, permuted by the interleaver across all the frame's vectors and
 * streams, mapped to QAM (constellation.h's labels), sent over the channel with AWGN,
 * detected, de-interleaved and decoded.
 *
 * SNR is per receive antenna, E||Hs||^2 / E||n||^2 per antenna: N0 = nt / 10^(snr/10)
 * for rayleigh and tdl (E|h|^2 = 1), 1 / 10^(snr/10) for awgn; the results also give
 * Eb/N0 = SNR * nr / (nt m R) with R = k / (V nt m) counting the padding.
 */
struct link_config {
    int nt = 4;
    int nr = 4;
    modulation mod = modulation::qam16;
    algorithm algo = algorithm::mtt;
    detector_params detector;

    /*! The LDPC code; empty (n = 0) for an uncoded link. */
    ldpc_code code = wimax_rate_half_code(2304);
    ldpc_decoder_config decoder;
    /*! Uncoded links only: bits per frame. */
    int uncoded_frame_bits = 2304;
    /*! Random bit interleaver over the frame (fixed by the seed); false sends codeword
     *  bit i as the i-th bit of the frame's vectors. */
    bool interleave = true;

    link_channel channel = link_channel::rayleigh;
    /*! rayleigh: vectors per channel draw (a divisor of V; 0 means V, block fading). */
    int coherence_vectors = 1;
    /*! tdl: sample-spaced power delay profile (normalised to a sum of 1), as the
     *  receiver's mimo_channel takes it. Taps are drawn once per frame, CN(0, p_l) per
     *  antenna pair; vector v sits on subcarrier v mod tdl_fft_len of an OFDM system
     *  whose cyclic prefix covers the channel, so its H is the taps' DFT there. */
    std::vector<double> tap_powers{ 1.0 };
    /*! tdl: each tap's delay in samples, continuous (a TR 38.901 profile's delays times
     *  its delay spread and sample rate: core::tdl_paths); empty: tap l at l samples.
     *  H(sc) = sum_l tap_l e^{-2 pi i sc delay_l / N}: the paths' exact response on the
     *  subcarriers, as a cyclic prefix covering them gives it. */
    std::vector<double> tap_delays;
    int tdl_fft_len = 256;

    std::uint64_t seed = 1;
    /*! Each point stops after the batch in which it reached target_frame_errors frame
     *  errors or max_frames frames (0: no target, max_frames alone). */
    std::uint64_t target_frame_errors = 100;
    std::uint64_t max_frames = 10000;

    /*! "cpu", "cuda" or "auto" (the GPU when one is usable, else the CPU). */
    std::string backend = "auto";
    int device = 0;
    /*! GPUs to spread each batch's frames over (empty: device alone). The counts are
     *  those of one GPU: every frame is drawn from its own index. */
    std::vector<int> devices;
    gpu_precision precision = gpu_precision::single;
    /*! CPU threads (0: all cores). */
    unsigned threads = 0;
    /*! Largest batch of frames (0: the backend's default); batches start small and
     *  double, so that points with many errors end early. */
    std::size_t max_batch_frames = 0;

    /*! std::invalid_argument naming the first field out of range. */
    void validate() const;
};

/*! Sizes of one frame, from the configuration. */
struct link_layout {
    int k = 0;               //!< information bits
    int n = 0;               //!< codeword bits (k when uncoded)
    int bits_per_vector = 0; //!< nt m
    int vectors = 0;         //!< V = ceil(n / bits_per_vector)
    int frame_bits = 0;      //!< V * bits_per_vector (n plus padding)
    int group = 1;           //!< vectors per channel matrix
    int channels = 0;        //!< channel matrices per frame, V / group
};

/*!
 * \brief Everything fixed for a simulation: layout, encoder, interleaver, noise rule.
 * Built once and shared by the CPU and GPU engines.
 */
struct link_setup {
    explicit link_setup(const link_config& config);

    link_config config;
    link_layout layout;
    std::shared_ptr<const ldpc_encoder> encoder; //!< null when uncoded
    /*! interleaver[i]: where bit i of [codeword | padding] goes in the frame's vector
     *  bits (vector v's bits at v * bits_per_vector ...). */
    std::vector<std::uint32_t> interleaver;
    constellation constel;

    bool coded() const { return encoder != nullptr; }
    /*! N0 for an SNR per receive antenna in dB (see link_config). */
    float noise_variance(double snr_db) const;
    /*! Eb/N0 in dB for that SNR (see link_config). */
    double ebn0_db(double snr_db) const;
};

/*!
 * \brief The CPU reference of the transmitter and channel: frame `frame` of SNR point
 * `point` exactly as both engines make it.
 * - info: k bits; frame_bits: the interleaved bits as the vectors carry them
 *   (frame_bits bits);
 * - h: layout.channels matrices nr x nt (mimo_batch's layout, group = layout.group);
 * - y: V vectors of nr samples.
 */
void make_link_frame(const link_setup& setup,
                     std::uint32_t point,
                     std::uint64_t frame,
                     float noise_var,
                     std::uint8_t* info,
                     std::uint8_t* frame_bits,
                     cf32* h,
                     cf32* y);

/*! Counts of a run of frames; every field adds up across runs. */
struct link_counts {
    std::uint64_t frames = 0;
    std::uint64_t frame_errors = 0;   //!< frames with at least one information bit wrong
    std::uint64_t info_bits = 0;
    std::uint64_t bit_errors = 0;     //!< information bits wrong after decoding
    std::uint64_t coded_bits = 0;     //!< codeword bits detected (padding excluded)
    std::uint64_t raw_bit_errors = 0; //!< codeword bits whose detector LLR had the wrong sign
    std::uint64_t iterations = 0;     //!< decoder iterations, summed over frames

    link_counts& operator+=(const link_counts& o);
};

/*! One engine per backend: runs frames [first, first + frames) of a point. */
class link_engine
{
public:
    virtual ~link_engine() = default;
    virtual link_counts run(std::uint32_t point,
                            std::uint64_t first_frame,
                            std::size_t frames,
                            float noise_var) = 0;
    /*! The largest batch it takes by default, and the name of its backend. */
    virtual std::size_t default_max_batch() const = 0;
    virtual std::string backend() const = 0;
};

/*! The CPU reference engine: frames spread over threads, a detector and a decoder per
 *  thread; cpu_detector and cpu_ldpc_decoder do the work. */
std::unique_ptr<link_engine> make_cpu_link_engine(std::shared_ptr<const link_setup> setup);
/*! The CUDA engine: frames made, detected, decoded and counted on the GPU; only the
 *  counts come back. Throws std::runtime_error without CUDA or a usable device, and
 *  std::invalid_argument for a configuration gpu_detector does not take. */
std::unique_ptr<link_engine> make_gpu_link_engine(std::shared_ptr<const link_setup> setup);

/*! The CUDA engine on config.devices (one per device, each batch cut into a share
 *  per device, run side by side), or on config.device when devices is empty. */
std::unique_ptr<link_engine> make_link_engine_on_devices(std::shared_ptr<const link_setup> setup);

/*! The CUDA engine's transmitter and channel alone, for frames [first_frame,
 *  first_frame + frames) of a point, copied back in make_link_frame's layout (frame
 *  after frame): how the tests hold the GPU's frames to the CPU reference's. */
void make_gpu_link_frames(std::shared_ptr<const link_setup> setup,
                          std::uint32_t point,
                          std::uint64_t first_frame,
                          std::size_t frames,
                          float noise_var,
                          std::uint8_t* info,
                          std::uint8_t* frame_bits,
                          cf32* h,
                          cf32* y);

/*! A simulated SNR point. */
struct link_point {
    double snr_db = 0;
    double ebn0_db = 0;
    link_counts counts;
    double seconds = 0;

    double fer() const;
    double ber() const;
    double raw_ber() const;
    double mean_iterations() const;
};

/*!
 * \brief The link simulator: an engine and the stopping rule.
 *
 * SNR point i draws its frames from counter (seed, i, frame): every detector run with
 * the same seed and SNR list sees the same frames (common random numbers), whatever the
 * backend, thread count or batch sizes. A GPU failure mid-run follows the fallback
 * policy of core/engine.h: the batch is redone on the CPU engine, which draws the same
 * frames, and the rest of the run stays there.
 */
class link_simulator
{
public:
    /*! progress: called after every batch with the point so far. */
    using progress_fn = std::function<void(const link_point&)>;

    explicit link_simulator(const link_config& config);
    ~link_simulator();

    const link_setup& setup() const { return *d_setup; }
    /*! "cpu" or "cuda": where the next batch runs. */
    std::string backend() const { return d_gpu_in_use.on_gpu() ? "cuda" : "cpu"; }
    /*! Why backend "auto" fell back to the CPU (empty otherwise). */
    const std::string& fallback_reason() const { return d_fallback; }
    /*! The fallback policy's state: why a GPU failure moved the run to the CPU. */
    gpu_fallback& fallback() { return d_gpu_in_use; }

    link_point run_point(std::uint32_t point, double snr_db, const progress_fn& progress = {});
    std::vector<link_point> run(const std::vector<double>& snr_db,
                                const progress_fn& progress = {});

private:
    std::shared_ptr<const link_setup> d_setup;
    std::unique_ptr<link_engine> d_gpu, d_cpu;
    std::string d_fallback;
    gpu_fallback d_gpu_in_use;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
