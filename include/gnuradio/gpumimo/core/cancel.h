/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_CANCEL_H
#define INCLUDED_GPUMIMO_CORE_CANCEL_H

#include <chrono>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Asking a long call into the core to end early. GNU Radio's stop() interrupts
 * each block's thread and then waits for its work() to return; a block sets, for its
 * thread, a check that tells whether that happened (cancel_scope around its calls into
 * the core), and the long CPU searches poll it: cpu_detector, once the scope has lasted
 * 100 ms (the block's work() call), stops within a few milliseconds (psd's search within
 * its next expansion), the vectors not searched erased (LLRs 0); a quicker work() call
 * finishes whole.
 * Without a scope nothing is ever cancelled (the core's own callers, the tests, the
 * tools).
 */
using cancel_check = bool (*)();

/*! Sets `check` as the calling thread's cancel check for the scope's lifetime (the
 *  previous one back after it). */
class cancel_scope
{
public:
    explicit cancel_scope(cancel_check check);
    ~cancel_scope();
    cancel_scope(const cancel_scope&) = delete;
    cancel_scope& operator=(const cancel_scope&) = delete;

private:
    cancel_check d_previous;
    std::chrono::steady_clock::time_point d_previous_start;
};

/*! The calling thread's cancel check (nullptr: none set). */
cancel_check current_cancel_check();
/*! When the calling thread's innermost cancel_scope began. */
std::chrono::steady_clock::time_point current_cancel_scope_start();

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
