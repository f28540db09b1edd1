#!/usr/bin/python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A picture of a QT GUI example's window while it runs, for docs/.

    scripts/qt_example_screenshot.py FILE.grc OUT.png [SECONDS]

Compiles the flowgraph with grcc (the module's block files from GRC_BLOCKS_PATH, as for
GRC), runs it with its defaults on Qt's offscreen platform (no display needed) from the
flowgraph's folder, as GRC's Execute does, and saves the window as it looks after
SECONDS (default 8).
"""

import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    grc, out = pathlib.Path(argv[0]).resolve(), pathlib.Path(argv[1]).resolve()
    seconds = float(argv[2]) if len(argv) > 2 else 8.0
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["grcc", "-o", tmp, str(grc)], check=True, capture_output=True)
        # From the flowgraph's folder from here on, its defaults included (evaluated as
        # the module loads).
        os.chdir(grc.parent)
        spec = importlib.util.spec_from_file_location(grc.stem, pathlib.Path(tmp) / f"{grc.stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    from PyQt5 import Qt
    app = Qt.QApplication.instance() or Qt.QApplication([])
    tb = getattr(module, grc.stem)()
    tb.resize(1280, 900)
    tb.start()
    tb.show()

    def grab():
        tb.grab().save(str(out))
        tb.stop()
        tb.wait()
        app.quit()

    Qt.QTimer.singleShot(int(seconds * 1000), grab)
    app.exec_()
    print(out)
    # The flowgraph's function probes poll forever from daemon threads: end the process
    # here, before they meet widgets Qt has torn down.
    os._exit(0 if out.is_file() else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
