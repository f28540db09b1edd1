#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Loopback ports for ZeroMQ streams in tests and tools (never another address)."""

import socket


def free_port_range(count, first=20000, last=60000):
    """The first of count consecutive TCP ports free on 127.0.0.1 (free when asked:
    another process may take one before the caller binds it)."""
    for start in range(first, last - count, 97):
        taken = []
        try:
            for k in range(count):
                s = socket.socket()
                taken.append(s)
                s.bind(("127.0.0.1", start + k))
            return start
        except OSError:
            continue
        finally:
            for s in taken:
                s.close()
    raise RuntimeError(f"no {count} consecutive free ports on 127.0.0.1")
