/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_ENGINE_H

#include <gnuradio/gpumimo/core/backend.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace gr {
namespace gpumimo {
namespace core {

/*! \throws std::invalid_argument unless backend is "auto", "cpu" or "cuda". */
void check_backend_name(const std::string& backend);

/*!
 * \brief The auto/cpu/cuda choice of every engine factory (make_detector_engine,
 * link_simulator, the blocks' GPU paths): the one place it is made.
 *
 * make_gpu(why) builds the GPU engine and returns true, or returns false with the reason
 * in why. Returns whether the GPU engine was made:
 * - "cpu": false, make_gpu not called.
 * - "cuda": true, or std::runtime_error "backend 'cuda' is not usable: <why>" where no
 *   device is usable, make_gpu said no or threw std::runtime_error (a CUDA failure);
 *   any other exception of make_gpu (std::invalid_argument: a configuration the GPU
 *   cannot take) passes through unchanged.
 * - "auto": true, or false with the reason in *fallback_reason, whatever make_gpu threw:
 *   the caller then makes its CPU engine, which refuses configurations that no backend
 *   takes.
 */
template <typename MakeGpu>
bool choose_backend(const std::string& backend,
                    MakeGpu&& make_gpu,
                    std::string* fallback_reason = nullptr)
{
    check_backend_name(backend);
    if (backend == "cpu")
        return false;
    std::string why;
    if (cuda_device_count(&why) == 0) {
        why = "no usable GPU (" + why + ")";
    } else if (backend == "cuda") {
        try {
            if (make_gpu(why))
                return true;
        } catch (const std::runtime_error& e) {
            why = e.what();
        }
    } else {
        try {
            if (make_gpu(why))
                return true;
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (backend == "cuda")
        throw std::runtime_error("backend 'cuda' is not usable: " + why);
    if (fallback_reason)
        *fallback_reason = why;
    return false;
}

/*!
 * For tests of what follows a GPU failure mid-run: GPUMIMO_INJECT_GPU_FAILURE=N in the
 * environment (when an engine is made) has the engine's GPU call number N (from 0) fail
 * as a CUDA failure would (std::runtime_error), before it runs; -1 (never) when unset or
 * not a number >= 0. docs/reliability.md.
 */
long injected_gpu_failure();

/*!
 * \brief The one fallback policy for a GPU failure mid-run, shared by every engine with
 * a GPU path (make_detector_engine, make_ofdm_fft_engine, make_apsm_engine,
 * make_ldpc_decoder_engine, make_fused_receiver_engine, make_frame_sync_engine,
 * make_stream_receiver_engine, make_smoothing_engine, make_chanest_engine,
 * make_payload_detector):
 * - bad input (std::invalid_argument) is the caller's, not the GPU's: it passes through
 *   and the GPU stays in use;
 * - any other failure of a GPU call (a CUDA error: std::runtime_error) is reported once,
 *   the call is redone on the CPU engine, so that nothing is lost, and the engine stays
 *   on the CPU for the rest of its life: a failed CUDA context usually stays failed, and
 *   retrying would cost every later call a failure. The CPU engine is made with the GPU
 *   one, so the switch allocates nothing.
 */
class gpu_fallback
{
public:
    using reporter = std::function<void(const std::string& what)>;

    explicit gpu_fallback(bool gpu = false) : d_gpu(gpu), d_fail_at(injected_gpu_failure()) {}
    bool on_gpu() const { return d_gpu; }
    /*! Why the GPU was left (empty while it is in use or was never). */
    const std::string& reason() const { return d_reason; }
    /*! Called once, with the failure, when the GPU is left (a block's logger). */
    void set_reporter(reporter r) { d_report = std::move(r); }

    /*! on_gpu() while the GPU is in use, else (and after its failure) on_cpu(). */
    template <typename Gpu, typename Cpu>
    auto run(Gpu&& on_gpu, Cpu&& on_cpu) -> decltype(on_cpu())
    {
        if (d_gpu) {
            try {
                if (d_gpu_calls++ == d_fail_at)
                    throw std::runtime_error("injected GPU failure (GPUMIMO_INJECT_GPU_FAILURE=" +
                                             std::to_string(d_fail_at) + ")");
                return on_gpu();
            } catch (const std::invalid_argument&) {
                throw;
            } catch (const std::exception& e) {
                leave(e.what());
            }
        }
        return on_cpu();
    }

private:
    void leave(const std::string& what)
    {
        d_gpu = false;
        d_reason = what;
        if (d_report)
            d_report("GPU failed, going on with the CPU for good: " + what);
    }

    bool d_gpu;
    long d_gpu_calls = 0;
    long d_fail_at; // the GPU call that fails by request (tests), or -1
    std::string d_reason;
    reporter d_report;
};

/*!
 * choose_backend() for a factory whose GPU maker returns the engine, or nullptr with the
 * reason in *why where the GPU cannot take the configuration: the GPU engine, or nullptr
 * where the CPU is to run.
 */
template <typename MakeGpu>
auto choose_gpu_engine(const std::string& backend,
                       MakeGpu&& make_gpu,
                       std::string* fallback_reason = nullptr) -> decltype(make_gpu(nullptr))
{
    decltype(make_gpu(nullptr)) gpu;
    choose_backend(
        backend,
        [&](std::string& why) {
            gpu = make_gpu(&why);
            return gpu != nullptr;
        },
        fallback_reason);
    return gpu;
}

/*!
 * \brief What every factory's engine shares: a GPU engine (or none) in front of the CPU
 * one, under the fallback policy. Engine is the subsystem's interface; a subclass holds
 * the CPU engine and forwards each call through run().
 */
template <typename Engine>
class with_gpu_fallback : public Engine
{
public:
    const char* backend() const override { return d_fallback.on_gpu() ? "cuda" : "cpu"; }
    gpu_fallback* fallback() override { return &d_fallback; }

protected:
    explicit with_gpu_fallback(std::unique_ptr<Engine> gpu)
        : d_gpu(std::move(gpu)), d_fallback(d_gpu != nullptr)
    {
    }
    /*! on_gpu(gpu engine) while the GPU is in use, else on_cpu(). */
    template <typename OnGpu, typename OnCpu>
    auto run(OnGpu&& on_gpu, OnCpu&& on_cpu) -> decltype(on_cpu())
    {
        return d_fallback.run([&] { return on_gpu(*d_gpu); }, on_cpu);
    }
    /*! run() for a call whose buffers may lie in device memory (device-resident stream
     *  buffers), which the CPU engine cannot reach: where on_device_memory() says so, the
     *  call fails on the CPU (after a GPU failure, in this call or before) with
     *  std::runtime_error instead of being redone there; the caller drops what it held
     *  and, for later calls, copies such buffers through host memory. */
    template <typename OnDeviceMemory, typename OnGpu, typename OnCpu>
    auto run_in_place(const char* engine, OnDeviceMemory&& on_device_memory, OnGpu&& on_gpu, OnCpu&& on_cpu)
        -> decltype(on_cpu())
    {
        return run(on_gpu, [&] {
            if (on_device_memory())
                throw std::runtime_error(std::string(engine) +
                                         ": the CPU engine cannot take device-resident buffers "
                                         "(after a GPU failure the caller copies them)");
            return on_cpu();
        });
    }

    std::unique_ptr<Engine> d_gpu;
    gpu_fallback d_fallback;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
