#!/usr/bin/python3
#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Pictures of the examples' canvases as GNU Radio Companion draws them, for docs/.

    xvfb-run -a -s "-screen 0 1920x1080x24" scripts/grc_screenshots.py OUT_DIR FILE.grc...

Opens each flowgraph in GRC (GNU Radio's Python, GTK 3: python3-gi, gir1.2-gtk-3.0;
xvfb-run where there is no display) and saves its whole canvas with GRC's own screen
capture (File > Screen Capture) as OUT_DIR/NAME.png, and each block's extents as GRC
drew it (its box and ports: x0, y0, x1, y1) in OUT_DIR/NAME.extents.json, against which
scripts/grc_layout.py's size estimates are held. The module's blocks come from
GRC_BLOCKS_PATH (build/grc for a build tree) and its Python package from PYTHONPATH, as
for GRC itself.
"""

import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out_dir, files = argv[0], [os.path.abspath(f) for f in argv[1:]]
    os.makedirs(out_dir, exist_ok=True)
    from gnuradio import gr
    # GRC's own import order (grc/main.py): Utils before these is a circular import.
    from gnuradio.grc.gui.Platform import Platform
    from gnuradio.grc.gui.Application import Application
    from gnuradio.grc.gui import Utils

    platform = Platform(version=gr.version(),
                        version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                        prefs=gr.prefs(), install_prefix=gr.prefix())
    platform.build_library()
    app = Application(files, platform)
    saved = []

    def capture():
        window = getattr(app, "main_window", None)
        if window is None:
            return True  # not up yet
        for page in window.get_pages():
            name = os.path.splitext(os.path.basename(page.file_path))[0]
            path = os.path.join(out_dir, name + ".png")
            page.flow_graph.update()
            Utils.make_screenshot(page.flow_graph, path, False)
            extents = {b.name: [int(v) for v in b.get_extents()]
                       for b in page.flow_graph.blocks}
            with open(os.path.join(out_dir, name + ".extents.json"), "w") as f:
                json.dump(extents, f, indent=0, sort_keys=True)
            saved.append(path)
        app.quit()
        return False

    GLib.timeout_add(3000, capture)
    app.run()
    for path in saved:
        print(path)
    return 0 if len(saved) == len(files) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
