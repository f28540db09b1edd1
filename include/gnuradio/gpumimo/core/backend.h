/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_CORE_BACKEND_H
#define INCLUDED_GPUMIMO_CORE_BACKEND_H

#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! True when this build contains the CUDA backends. */
bool cuda_built();

/*! Number of CUDA devices usable now; 0 with the reason in *why (no CUDA in this
 *  build, no driver, no device) otherwise. Never throws. */
int cuda_device_count(std::string* why = nullptr);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
