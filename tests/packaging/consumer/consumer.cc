/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A consumer of the installed module: makes one of its blocks and reads a setting back
 * (tests/packaging/check_consumer.sh).
 */
#include <gnuradio/gpumimo/mimo_channel.h>

#include <iostream>

int main()
{
    auto channel = gr::gpumimo::mimo_channel::make(2, 4, { 0.7, 0.2, 0.1 }, 25.0);
    std::cout << channel->name() << ": " << channel->snr_db() << " dB\n";
    return channel->snr_db() == 25.0 ? 0 : 1;
}
