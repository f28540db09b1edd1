/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_HOST_DEVICE_H
#define INCLUDED_GPUMIMO_CORE_HOST_DEVICE_H

/*! Marks a core function that the CUDA kernels call too: __host__ __device__ under nvcc,
 *  nothing for the host compiler. */
#ifdef __CUDACC__
#define GPUMIMO_HOST_DEVICE __host__ __device__
#else
#define GPUMIMO_HOST_DEVICE
#endif

#endif
