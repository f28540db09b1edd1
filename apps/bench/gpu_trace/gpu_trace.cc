/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A GPU timeline for any program, flowgraphs included, where Nsight Systems is not
// installed (the GPU machines here have CUPTI but no nsys). CUDA loads this library
// into the process when CUDA_INJECTION64_PATH names it, and calls
// InitializeInjection() at the first cuInit; from then on CUPTI's activity records are
// written as CSV lines to the file GPUMIMO_TRACE_FILE names:
//
//   kernel,start_ns,end_ns,stream,name
//   memcpy,start_ns,end_ns,stream,kind:bytes        (kind: HtoD, DtoH, DtoD, ...)
//   memset,start_ns,end_ns,stream,bytes
//   api,start_ns,end_ns,thread_name:tid,call         (only calls of 20 us or longer:
//                                                      the ones a host thread waits in)
//
// The kernel records are the concurrent kind, which does not serialise kernels. The
// host threads are named from /proc (GNU Radio names each block's thread after the
// block). scripts/gpu_timeline.py reads the file. Nothing here is part of the module.

#include <cupti.h>

#include <cxxabi.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {

constexpr size_t buffer_bytes = 8 << 20;
constexpr uint64_t api_threshold_ns = 20000;

std::mutex file_mutex;
FILE* trace_file = nullptr;
std::unordered_map<uint32_t, std::string> thread_names;

void check(CUptiResult result, const char* call)
{
    if (result == CUPTI_SUCCESS)
        return;
    const char* text = "unknown";
    cuptiGetResultString(result, &text);
    std::fprintf(stderr, "gpu_trace: %s failed: %s\n", call, text);
    std::abort();
}

// A kernel's name without its template and argument lists: one short column.
std::string kernel_name(const char* mangled)
{
    int status = 0;
    char* plain = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string name = status == 0 && plain ? plain : mangled;
    std::free(plain);
    for (const std::string anonymous = "(anonymous namespace)::";;) {
        const auto at = name.find(anonymous);
        if (at == std::string::npos)
            break;
        name.erase(at, anonymous.size());
    }
    if (name.compare(0, 5, "void ") == 0)
        name.erase(0, 5);
    const auto paren = name.find('(');
    if (paren != std::string::npos)
        name.resize(paren);
    const auto angle = name.find('<');
    if (angle != std::string::npos)
        name.resize(angle);
    for (char& c : name)
        if (c == ',')
            c = ';';
    return name;
}

const std::string& thread_name(uint32_t tid)
{
    auto found = thread_names.find(tid);
    if (found != thread_names.end())
        return found->second;
    std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.empty())
        name = "?";
    for (char& c : name)
        if (c == ',' || c == ':')
            c = '_';
    return thread_names.emplace(tid, name + ":" + std::to_string(tid)).first->second;
}

const char* copy_kind(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "HtoH";
    default:
        return "other";
    }
}

void write_record(const CUpti_Activity* record)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::fprintf(trace_file, "kernel,%llu,%llu,%u,%s\n", (unsigned long long)k->start,
                     (unsigned long long)k->end, k->streamId, kernel_name(k->name).c_str());
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        std::fprintf(trace_file, "memcpy,%llu,%llu,%u,%s:%llu\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, m->streamId, copy_kind(m->copyKind),
                     (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        std::fprintf(trace_file, "memset,%llu,%llu,%u,%llu\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, m->streamId, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        if (a->end - a->start < api_threshold_ns)
            break;
        const char* name = "?";
        cuptiGetCallbackName(record->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                 ? CUPTI_CB_DOMAIN_RUNTIME_API
                                 : CUPTI_CB_DOMAIN_DRIVER_API,
                             a->cbid, &name);
        std::fprintf(trace_file, "api,%llu,%llu,%s,%s\n", (unsigned long long)a->start,
                     (unsigned long long)a->end, thread_name(a->threadId).c_str(), name);
        break;
    }
    default:
        break;
    }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes));
    *size = buffer_bytes;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid)
{
    {
        std::lock_guard<std::mutex> lock(file_mutex);
        CUpti_Activity* record = nullptr;
        while (trace_file && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
            write_record(record);
        size_t dropped = 0;
        cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
        if (dropped)
            std::fprintf(stderr, "gpu_trace: %zu records dropped\n", dropped);
    }
    std::free(buffer);
}

void finish()
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(file_mutex);
    if (trace_file) {
        std::fclose(trace_file);
        trace_file = nullptr;
    }
}

} // namespace

extern "C" int InitializeInjection(void)
{
    const char* path = std::getenv("GPUMIMO_TRACE_FILE");
    trace_file = std::fopen(path && *path ? path : "gpu-trace.csv", "w");
    if (!trace_file) {
        std::perror("gpu_trace: the trace file");
        return 0;
    }
    static char file_buffer[1 << 20];
    std::setvbuf(trace_file, file_buffer, _IOFBF, sizeof file_buffer);
    check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType");
    check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
          "cuptiActivityRegisterCallbacks");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernels");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enable memcpy");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enable memset");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enable runtime API");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "enable driver API");
    std::atexit(finish);
    return 1;
}
