/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpumimo/core/cancel.h>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
thread_local cancel_check t_check = nullptr;
thread_local std::chrono::steady_clock::time_point t_start{};
} // namespace

cancel_scope::cancel_scope(cancel_check check) : d_previous(t_check), d_previous_start(t_start)
{
    t_check = check;
    t_start = std::chrono::steady_clock::now();
}
cancel_scope::~cancel_scope()
{
    t_check = d_previous;
    t_start = d_previous_start;
}
cancel_check current_cancel_check() { return t_check; }
std::chrono::steady_clock::time_point current_cancel_scope_start() { return t_start; }

} // namespace core
} // namespace gpumimo
} // namespace gr
