#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the module's Python tools (apps/gpumimo_*) share for their options: a parser
whose errors are one line naming the option and what it accepts (exit code 2, as
argparse's), argument types with ranges, and a guard that turns what the blocks refuse
(ValueError, RuntimeError: a parameter out of range, a file they cannot read) into one
such line instead of a traceback (docs/reliability.md, "Tools")."""

import argparse
import math
import sys


class ToolParser(argparse.ArgumentParser):
    """argparse with one-line errors: "PROG: argument --x: ...", exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def int_range(low, high=None):
    """An argparse type: a whole number in [low, high] (high None: no upper bound)."""
    accepts = f"a whole number from {low}" + (f" to {high}" if high is not None else " up")

    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {accepts}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text} is not {accepts}")
        return value
    return parse


def float_range(low=None, high=None):
    """An argparse type: a finite number in [low, high] (None: unbounded that side)."""
    bounds = ("" if low is None else f" >= {low:g}") + \
        ("" if high is None else (" and" if low is not None else "") + f" <= {high:g}")
    accepts = "a finite number" + bounds

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {accepts}") from None
        if not math.isfinite(value) or (low is not None and value < low) or \
                (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text} is not {accepts}")
        return value
    return parse


def one_of(names):
    """An argparse type: one of `names`, exactly as written there."""
    names = tuple(names)

    def parse(text):
        if text not in names:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(names)}")
        return text
    return parse


def check_cuda_backend(parser, option, backend, cuda_device_count):
    """parser.error() for `backend` "cuda" where no CUDA device is usable (the reason
    cuda_device_count() gives)."""
    if backend != "cuda":
        return
    count, why = cuda_device_count()
    if count < 1:
        parser.error(f"argument {option}: cuda, but no CUDA device is usable here ({why}); "
                     "auto or cpu run without one")


def run_tool(prog, main, argv=None):
    """main(argv) with what the blocks refuse as one line "PROG: reason", exit code 2."""
    try:
        return main(argv)
    except (ValueError, RuntimeError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
