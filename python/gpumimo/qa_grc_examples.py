#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The module's GRC blocks as GNU Radio Companion sees them: every example flowgraph in
examples/ compiles with grcc against grc/*.block.yml, and the generated flowgraph runs
and gives what it promises."""

import os
import pathlib
import re
import sys
import time

import numpy as np
import pytest

from gnuradio import gpumimo, gr

SOURCE = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import compile_flowgraph, grc_blocks_dir, grc_environment  # noqa: E402


def example_files():
    """Every example flowgraph: examples/*.grc and the radio ones in examples/n310/."""
    return sorted((SOURCE / "examples").rglob("*.grc"), key=lambda f: f.stem)


def compile_example(name, out_dir):
    (path,) = [f for f in example_files() if f.stem == name]
    # cwd: where the examples' relative paths start
    return compile_flowgraph(path, out_dir, cwd=SOURCE)


def test_every_enum_parameter_has_a_label_and_attributes_per_option():
    """Every block's menus (the built .block.yml files): as many labels and attribute
    values as options, so that a modulation added to a menu cannot leave a block's
    vector length (apsm_detector's bits) short of it."""
    import yaml
    files = sorted(pathlib.Path(grc_blocks_dir()).glob("gpumimo_*.block.yml"))
    assert len(files) >= 15, files
    for f in files:
        for p in yaml.safe_load(f.read_text()).get("parameters", []):
            if p.get("dtype") != "enum":
                continue
            n = len(p["options"])
            assert len(p.get("option_labels", p["options"])) == n, (f.name, p["id"])
            for name, values in (p.get("option_attributes") or {}).items():
                assert len(values) == n, (f.name, p["id"], name)


def test_blocks_sit_in_subcategories_with_their_gpu_settings_in_a_tab():
    """GRC's block tree: every block under a sub-category of [GPU MIMO]; in each block's
    properties the GPU settings (backend, device, ...) in a GPU tab and the tuning knobs
    (LLR clips, K-best K, thresholds, ...) in Advanced, so that General holds what a
    first flowgraph needs (mimo_ofdm_rx once had 23 parameters in General)."""
    import yaml
    gpu = {"backend", "device", "devices", "device_buffers", "fft_backend", "sync_backend",
           "streamed"}
    files = sorted(pathlib.Path(grc_blocks_dir()).glob("gpumimo_*.block.yml"))
    general = {}
    for f in files:
        block = yaml.safe_load(f.read_text())
        assert re.fullmatch(r"\[GPU MIMO\]/[A-Z][A-Za-z ]+", block["category"]), (f.name, block["category"])
        for p in block.get("parameters", []):
            if p["id"] in gpu:
                assert p.get("category") == "GPU", (f.name, p["id"])
        general[f.stem] = sum(1 for p in block.get("parameters", []) if "category" not in p)
    print(general)
    assert max(general.values()) <= 14, general


def test_block_documentation_is_laid_out_as_gnu_radios_own():
    """GRC's documentation tab of every block reads as GNU Radio's own blocks' do: a
    summary of at most three lines first, then short paragraphs (at most six lines),
    each on one topic (In/Out, a parameter, bad input), lines that fit the tab, and no
    pointer to a source file a GRC user does not have ("see mimo_detector.h"), neither
    in the YAML nor in the Python class's docstring GRC shows beneath it."""
    import yaml
    from gnuradio.grc.core.utils.extract_docs import docstring_guess_from_key
    files = sorted(pathlib.Path(grc_blocks_dir()).glob("gpumimo_*.block.yml"))
    assert len(files) >= 17
    for f in files:
        block = yaml.safe_load(f.read_text())
        doc = block.get("documentation", "")
        paragraphs = [p.split("\n") for p in doc.split("\n\n")]
        assert doc and len(paragraphs[0]) <= 3, (f.name, paragraphs[0])
        for p in paragraphs:
            assert 1 <= len(p) <= 6 and all(line.strip() for line in p), (f.name, p)
            assert all(len(line) <= 88 for line in p), (f.name, max(p, key=len))
        shown = [doc] + [d or "" for d in docstring_guess_from_key(block["id"]).values()]
        for text in shown:
            assert not re.search(r"\b[a-z_]+\.(h|cc|cu)\b", text), (f.name, text)


def test_the_estimate_ports_item_size_in_grc_is_the_blocks():
    """The Channel Estimator's est output and the MIMO Detector's est input give GRC the
    item size (vlen bytes) the blocks make (core::estimate_items), so that GRC's port
    check and GNU Radio's connect agree, for every preset and a spread of shapes."""
    import types
    import yaml
    blocks_dir = grc_blocks_dir()
    chanest = yaml.safe_load((blocks_dir / "gpumimo_mimo_chanest.block.yml").read_text())
    detector = yaml.safe_load((blocks_dir / "gpumimo_mimo_detector.block.yml").read_text())
    out = [p for p in chanest["outputs"] if p.get("label") == "eq/est"][0]["vlen"]
    inp = [p for p in detector["inputs"] if p.get("label") == "est"][0]["vlen"]
    presets = [p for p in chanest["parameters"] if p["id"] == "preset"][0]
    carriers = dict(zip(presets["options"], presets["option_attributes"]["carriers"]))
    for preset, used in carriers.items():
        assert used == gpumimo.numerology(preset)["used_carriers"]
        for streams, antennas, nsym, interval in [(1, 1, 1, 0), (2, 4, 3, 0), (4, 4, 9, 0), (8, 16, 40, 0),
                                                  (3, 7, 1000, 0), (2, 4, 10, 4), (4, 4, 9, 9), (1, 2, 1, 1)]:
            ns = {"preset": types.SimpleNamespace(carriers=used), "streams": streams,
                  "antennas": antennas, "payload_symbols": nsym, "equalized": "False",
                  "pilot_interval": interval}
            want = gpumimo.estimate_item_bytes(preset, streams, antennas, nsym, interval)
            for expr in (out, inp):
                assert eval(expr.strip()[2:-1], {}, ns) == want, (expr, preset, streams, nsym, interval)


def _block_ids(folder):
    import yaml
    ids = set()
    for f in pathlib.Path(folder).glob("*.block.yml"):
        try:
            ids.add(yaml.safe_load(f.read_text())["id"])
        except Exception:  # noqa: BLE001 - a file GRC itself would skip
            pass
    return ids


def test_examples_use_only_blocks_grc_knows():
    """Every block of every example exists in GNU Radio Companion's library (GNU Radio's
    block folders and the module's built ones): an unknown id is a red "Missing Block"
    box in GRC, and grcc drops it silently (the QT examples once named qtgui_label, GNU
    Radio 3.10's variable_qtgui_label, and their counters never appeared)."""
    import yaml
    known = _block_ids(grc_blocks_dir())
    configured = gr.prefs().get_string("grc", "global_blocks_path", "")
    for folder in [d for d in configured.split(os.pathsep) if d] + \
            [os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks")]:
        known |= _block_ids(folder)
    if "import_" in known:
        known.add("import")  # GRC stores the Import block as "import" (a Python keyword)
    assert "variable_qtgui_label" in known and "gpumimo_mimo_detector" in known
    missing = []
    for f in example_files():
        for b in yaml.safe_load(f.read_text()).get("blocks") or []:
            if b["id"] not in known:
                missing.append(f"{f.name}: {b['name']} ({b['id']})")
    assert not missing, missing


def test_no_two_blocks_of_an_example_overlap(tmp_path):
    """Every example's canvas as GNU Radio Companion draws it: no two blocks (with their
    ports) overlap. GRC itself measures them: scripts/grc_screenshots.py opens every
    example under xvfb-run and writes each block's extents beside the picture
    (scripts/grc_layout.py --sizes lays the examples out from them; its own estimates
    were short of GRC's: 28 overlaps once)."""
    import json
    import shutil
    import subprocess
    if not shutil.which("xvfb-run"):
        pytest.skip("xvfb-run (package xvfb) is needed to run GRC without a display")
    gi = pytest.importorskip("gi")
    try:
        gi.require_version("Gtk", "3.0")
    except ValueError:
        pytest.skip("GTK 3's introspection data (gir1.2-gtk-3.0) is needed for GRC")
    files = example_files()
    env = dict(grc_environment(), HOME=str(tmp_path))  # GRC writes its settings there
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", sys.executable,
         str(SOURCE / "scripts" / "grc_screenshots.py"), str(tmp_path), *map(str, files)],
        env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    found = []
    for f in files:
        boxes = sorted(json.loads((tmp_path / f"{f.stem}.extents.json").read_text()).items())
        assert len(boxes) > 3, f.name
        for i, (a, (ax0, ay0, ax1, ay1)) in enumerate(boxes):
            for b, (bx0, by0, bx1, by1) in boxes[i + 1:]:
                if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
                    found.append(f"{f.name}: {a} / {b}")
    assert not found, found


def test_shipped_files_are_found_from_the_examples_folder_and_the_root(tmp_path, monkeypatch):
    """gpumimo.shipped_file, the examples' default for what they read: from the examples
    folder (where GRC runs a flowgraph), from the repository's root, and from elsewhere
    the name as given (the reading block then names it)."""
    name = "recordings/sim_4x4_16qam.sigmf-collection"
    monkeypatch.chdir(SOURCE / "examples")
    assert pathlib.Path(gpumimo.shipped_file(name)).resolve() == SOURCE / "examples" / name
    monkeypatch.chdir(SOURCE)
    assert pathlib.Path(gpumimo.shipped_file(name)).resolve() == SOURCE / "examples" / name
    monkeypatch.chdir(tmp_path)
    found = pathlib.Path(gpumimo.shipped_file(name))
    assert found == pathlib.Path(name) or found.is_file()  # an install's share/, if any


def test_every_example_has_a_test():
    examples = [p.stem for p in example_files()]
    assert examples == ["apsm_ota_replay", "apsm_sim_loopback", "n310_apsm_rx", "n310_apsm_tx",
                        "n310_record_16ch", "n310_rx_16ch",
                        "n310_rx_array_link", "n310_tx", "n310_zmq_frontend", "ofdm_fft_loopback", "replay_sigmf",
                        "replay_sigmf_qt", "sim_loopback", "sim_loopback_qt", "zmq_array_sim",
                        "zmq_link_rx"], \
        "add a test for each new example"


@pytest.mark.parametrize("algorithm", ["mmse", "mtt"])
def test_sim_loopback(tmp_path, algorithm):
    """Frames of the source through the channel simulator and the receiver chain: every
    frame asked for reaches the sink, and at 40 dB every payload bit is right."""
    module = compile_example("sim_loopback", tmp_path)
    tb = module.sim_loopback(frames=20, snr_db=40, algorithm=algorithm, seed=3)
    tb.start()
    tb.wait()
    assert tb.sink.frames() == 20 and tb.sink.partial_frames() == 0
    assert tb.sink.bits() == 20 * tb.frame["payload_bits"]
    assert tb.sink.bit_errors() == 0, tb.sink.ber()
    assert tb.sink.non_finite_llrs() == 0 and tb.sink.zero_llrs() == 0


@pytest.mark.parametrize("impairments", [{}, {"iq_gain_db": 0.5, "iq_phase_deg": 3.0,
                                              "phase_noise": 1e-7}])
def test_apsm_sim_loopback(tmp_path, impairments):
    """Four single-antenna users through the channel simulator (TR 38.901 TDL-A at 30
    ns) into the APSM receiver: every frame asked for is found and scored, one training
    (on the first frame's pilots), and at 30 dB with a carrier offset every payload bit
    is right; with an IQ imbalance of 0.5 dB and 3 degrees and Wiener phase noise of
    1e-7 rad^2 a sample, given as the flowgraph's parameters, every frame still scored
    and the BER below 1e-3 (0 seen). Phase noise of 1e-6 (an oscillator per antenna)
    turns the antennas apart over the 40 frames of one training: 4.3e-3 seen (such
    radios need the receiver's train_every)."""
    module = compile_example("apsm_sim_loopback", tmp_path)
    tb = module.apsm_sim_loopback(frames=40, snr_db=30, seed=4, **impairments)
    tb.start()
    tb.wait()
    print(f"{impairments or 'no impairments'}: BER {tb.sink.ber():.2e}")
    assert tb.sink.frames() == 40 and tb.sink.partial_frames() == 0
    assert tb.sink.bits() == 40 * tb.frame["payload_bits"]
    assert tb.rx.detector.trainings() == 1 and tb.rx.demux.dropped_symbols() == 0
    if impairments:
        assert tb.sink.ber() < 1e-3, tb.sink.ber()
    else:
        assert tb.sink.bit_errors() == 0, tb.sink.ber()
    assert tb.sink.non_finite_llrs() == 0


def test_replay_sigmf(tmp_path):
    """The shipped recording block by block, its LDPC code decoded by the sink: every
    frame found and decoded, and the same uncoded errors (the LLRs' signs against the
    decoded codewords) as the hierarchical receiver on the same backends (exactly: the
    same blocks, the same arithmetic) and, on the CPU, as the fused receiver and the
    CPU chain. Where the
    example ran on a GPU, the CPU chains may differ by bits whose LLR lies within float
    rounding of zero: the GPU detectors' LLRs equal the CPU's within 1e-4 relative
    (test_gpu_detectors), and on an earlier recording (9% BER, 921,600 bits) one bit in
    921,600 was seen to flip (H200, 2026-11-22); at most 1e-5 of the bits are let go."""
    collection = str(SOURCE / "examples" / "recordings" / "sim_4x4_16qam.sigmf-collection")
    module = compile_example("replay_sigmf", tmp_path)
    tb = module.replay_sigmf(collection=collection, algorithm="mmse")
    tb.start()
    tb.wait()
    assert tb.sink.frames() == 120 and tb.sink.partial_frames() == 0
    assert tb.sink.non_finite_llrs() == 0
    assert tb.sink.codewords() == 360 and tb.sink.frame_errors() < 12  # decoded FER < 0.1
    on_gpu = gpumimo.cuda_device_count()[0] > 0  # the example's blocks take "auto"

    def errors(backend, fused):
        ref = gr.top_block()
        src = gpumimo.sigmf_source(collection)
        rx = gpumimo.mimo_ofdm_rx("small", 4, "16qam", 10, 4, "mmse", backend=backend,
                                  fft_backend=backend, fused=fused)
        sink = gpumimo.llr_sink("small", 4, "16qam", 10, prbs_seed=2026, code="wimax_2304")
        for a in range(4):
            ref.connect((src, a), (rx, a))
        ref.connect(rx, sink)
        ref.run()
        assert sink.frames() == tb.sink.frames()
        return sink.raw_bit_errors()

    assert errors("auto", False) == tb.sink.raw_bit_errors()
    allowed = int(1e-5 * tb.sink.raw_bits()) if on_gpu else 0
    for fused in (False, True):
        cpu = errors("cpu", fused)
        print(f"uncoded bit errors: example {tb.sink.raw_bit_errors()}, CPU chain "
              f"(fused={fused}) {cpu}")
        assert abs(cpu - tb.sink.raw_bit_errors()) <= allowed, f"fused={fused}"
    assert 0 < tb.sink.raw_ber() < 0.15  # 22 dB, 4x4 MMSE: docs/frame.md's 2.4e-2


@pytest.fixture
def qt_app(monkeypatch):
    """A QApplication on Qt's offscreen platform: the QT GUI examples' widgets need one,
    and no display is there in CI."""
    qt = pytest.importorskip("PyQt5.Qt")
    pytest.importorskip("gnuradio.qtgui")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    return qt.QApplication.instance() or qt.QApplication([])


# GRC's function probes poll forever from daemon threads (a GUI run ends with its
# process); left alone after a test, they set labels whose widgets are gone, which
# crashed the test process. Their setters become no-ops and the flowgraph is kept.
_FINISHED_QT_FLOWGRAPHS = []


def retire_probes(tb):
    for name in dir(tb):
        if name.startswith("set_") and name.endswith("_probe"):
            setattr(tb, name, lambda value: None)
    _FINISHED_QT_FLOWGRAPHS.append(tb)


def test_replay_sigmf_qt(tmp_path, qt_app):
    """The replay with its QT GUI, run as GRC's Execute runs it (from the examples folder,
    its default recording): the same chain (every frame found and decoded), the
    equalised symbols reach the constellation, the labels show what the probes read from
    the sink, and the error-rate plot's PDUs (every 2 frames) add up to the sink's
    totals."""
    import time
    import pmt
    from gnuradio import blocks
    module = compile_example("replay_sigmf_qt", tmp_path)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(SOURCE / "examples")  # as GRC's Execute runs it, with its defaults
        tb = module.replay_sigmf_qt()
    rates = blocks.message_debug()  # beside the plot, which shows them
    tb.msg_connect((tb.sink, "error_rates"), (rates, "store"))
    tb.start()
    tb.wait()
    assert tb.sink.frames() == 120 and tb.sink.fer() < 0.1 and tb.sink.raw_ber() > 0
    assert rates.num_messages() == 60
    windows = np.array([pmt.f32vector_elements(pmt.cdr(rates.get_message(i)))
                        for i in range(60)])
    assert windows[:, 0].mean() == pytest.approx(tb.sink.raw_ber(), rel=1e-5)
    assert round(2 * windows[:, 1].sum()) == tb.sink.frame_errors()
    assert tb.chanest.frames() == 120
    time.sleep(1.2)  # the probes poll twice a second
    assert tb.get_frames_found_probe() == 120
    assert tb.get_fer_probe() == tb.sink.fer()
    qt_app.processEvents()  # the labels' texts are set through Qt's event queue
    assert tb.get_frames_found_label() == 120
    assert tb._frames_found_label_label.text() == "120"
    tb.stop()
    tb.wait()
    retire_probes(tb)


def test_sim_loopback_qt(tmp_path, qt_app):
    """The simulated loopback with its QT GUI: at 30 dB (the SNR slider's callback) frames
    flow, are found and decode."""
    import time
    module = compile_example("sim_loopback_qt", tmp_path)
    tb = module.sim_loopback_qt(algorithm="mmse", seed=5)
    tb.set_snr_db(30)
    assert tb.channel.snr_db() == 30
    tb.start()
    deadline = time.time() + 60
    while tb.sink.frames() < 20 and time.time() < deadline:
        time.sleep(0.2)
    tb.stop()
    tb.wait()
    retire_probes(tb)
    assert tb.sink.frames() >= 20
    assert tb.sink.fer() == 0 and tb.sink.codewords() == 3 * tb.sink.frames()


# Tests send packets to the loopback address only: the radio flowgraphs' user-facing
# defaults name the N310s' usual private addresses, so the tests give them these instead
# (nothing answers there, and UHD's probes never leave the machine).
LOOPBACK_RADIOS = {
    "n310_apsm_rx": "addr0=127.0.0.2,addr1=127.0.0.3,addr2=127.0.0.4,addr3=127.0.0.5",
    "n310_apsm_tx": "addr=127.0.0.2",
    "n310_rx_16ch": "addr0=127.0.0.2,addr1=127.0.0.3,addr2=127.0.0.4,addr3=127.0.0.5",
    "n310_record_16ch": "addr0=127.0.0.2,addr1=127.0.0.3,addr2=127.0.0.4,addr3=127.0.0.5",
    "n310_rx_array_link": "addr0=127.0.0.2,addr1=127.0.0.3,addr2=127.0.0.4,addr3=127.0.0.5",
    "n310_tx": "addr=127.0.0.2",
    "n310_zmq_frontend": "addr0=127.0.0.2,addr1=127.0.0.3,addr2=127.0.0.4,addr3=127.0.0.5",
}


@pytest.mark.parametrize("name", sorted(LOOPBACK_RADIOS))
def test_radio_flowgraphs_build_up_to_the_radios(tmp_path, name):
    """Without N310s the flowgraph compiles and stops where the radios are needed, with
    UHD's own error; with them it would run. The radios are looked for on loopback
    addresses only."""
    module = compile_example(name, tmp_path)
    kwargs = {"addresses": LOOPBACK_RADIOS[name]}
    if name == "n310_record_16ch":
        kwargs["prefix"] = str(tmp_path / "rec")
    if name == "n310_zmq_frontend":
        kwargs["base_port"] = gpumimo.free_port_range(4)  # bound on 127.0.0.1 (its default)
    with pytest.raises(RuntimeError, match="No devices found"):
        getattr(module, name)(**kwargs)


IPV4 = re.compile(r"(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\w.])")


def test_tests_and_tools_name_only_loopback_addresses():
    """No test, CI script or tool names a network address other than the loopback range
    127.0.0.0/8, and every radio flowgraph a test builds gets loopback addresses (the
    examples' own defaults are for users and are not scanned)."""
    corpus = SOURCE / "tests" / "fuzz" / "corpus"  # fuzzers' inputs: data, not settings
    checked = [p for pattern in ("python/gpumimo/qa_*.py", "tests/**/*", "scripts/*",
                                 ".ci/*", "apps/*", "apps/**/*")
               for p in SOURCE.glob(pattern) if p.is_file() and corpus not in p.parents]
    assert len(checked) > 20, checked
    offenders = []
    for path in checked:
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for match in IPV4.finditer(text):
            octets = [int(o) for o in match.groups()]
            if max(octets) <= 255 and octets[0] != 127:
                offenders.append(f"{path.relative_to(SOURCE)}: {match.group(0)}")
    assert not offenders, offenders
    for name, addresses in LOOPBACK_RADIOS.items():
        hosts = [kv.split("=", 1)[1] for kv in addresses.split(",")]
        assert hosts and all(h.startswith("127.") for h in hosts), (name, hosts)


def test_zmq_array_split_over_loopback(tmp_path):
    """A 16-channel array served over ZeroMQ, one receiver flowgraph per link: the
    simulated array (four 4x4 links, LDPC-coded) pushes each link's 4 channels on its own
    port of 127.0.0.1, and four zmq_link_rx flowgraphs pull one each, decode on the
    fused receiver and count against their link's transmitter. Each finds its frames
    and decodes them without error at 30 dB; a receiver fed another link's samples would
    count about half its bits wrong (each link has its own PRBS seed)."""
    array = compile_example("zmq_array_sim", tmp_path)
    link_rx = compile_example("zmq_link_rx", tmp_path)
    port = gpumimo.free_port_range(4)
    seed = 11
    receivers = [link_rx.zmq_link_rx(frontend="127.0.0.1", port=port + k, seed=seed + k,
                                     backend="cpu")
                 for k in range(4)]
    for rx in receivers:
        rx.start()
    front = array.zmq_array_sim(bind_address="127.0.0.1", base_port=port, snr_db=30,
                                seed=seed)
    front.start()
    deadline = time.time() + 120
    try:
        while time.time() < deadline and min(rx.sink.frames() for rx in receivers) < 10:
            time.sleep(0.2)
    finally:
        front.stop()
        front.wait()
        for rx in receivers:
            rx.stop()
            rx.wait()
    for k, rx in enumerate(receivers):
        assert rx.sink.frames() >= 10, (k, rx.sink.frames())
        assert rx.sink.bits() == rx.sink.frames() * rx.rx.fused.info_bits()
        assert rx.sink.bit_errors() == 0, (k, rx.sink.ber())
        assert rx.rx.fused.codewords() >= 3 * 10 and rx.rx.fused.codeword_errors() == 0


def test_ofdm_fft_loopback(tmp_path):
    module = compile_example("ofdm_fft_loopback", tmp_path)
    tb = module.ofdm_fft_loopback()
    tb.start()
    tb.wait()
    ncar = len(tb.carriers)
    sent = [np.array(tb.qpsk), np.array(tb.qpsk[::-1])]
    for sink, want in zip((tb.sink_0, tb.sink_1), sent):
        got = np.array(sink.data())
        assert got.size == want.size == 100 * ncar
        np.testing.assert_allclose(got, want, atol=1e-4)


def apsm_ota_dir():
    env = os.environ.get("GPUMIMO_APSM_OTA_DIR")
    return pathlib.Path(env) if env else SOURCE / "examples" / "recordings" / "apsm-ota"


def test_apsm_ota_replay(tmp_path):
    """The recording through the example's detector decides the data symbols as the
    core reference does (the same error count per user; the GPU's float training may
    move a symbol at a decision boundary: 2 of 3,840)."""
    d = apsm_ota_dir()
    if not (d / "rx").is_dir():
        if os.environ.get("GPUMIMO_ALLOW_MISSING_DATA") == "1":
            pytest.skip(f"no recordings at {d}")
        pytest.fail(f"the recordings are missing at {d} (GPUMIMO_APSM_OTA_DIR)")
    module = compile_example("apsm_ota_replay", tmp_path)
    tb = module.apsm_ota_replay(data_dir=str(d))
    tb.start()
    tb.wait()
    rec = tb.recording
    n_train, n_data = rec["rx_training"].shape[0], rec["rx_data"].shape[0]
    users = rec["sent_training"].shape[0]
    soft = np.array(tb.soft_sink.data()).reshape(-1, users).T
    assert soft.shape == (users, n_train + n_data)
    assert tb.detector.trainings() == 1 and tb.detector.untrained() == n_train
    want, _, _ = gpumimo.apsm_reference(rec["rx_training"], rec["sent_training"],
                                        rec["rx_data"], rec["modulation"])
    constellation = gpumimo.constellation(rec["modulation"])
    points = np.asarray(constellation.points)

    def decide(x):
        return np.argmin(np.abs(x[..., None] - points), axis=-1)

    sent = decide(rec["sent_data"])
    errors = (decide(soft[:, n_train:]) != sent).sum(axis=1)
    want_errors = (decide(want) != sent).sum(axis=1)
    print("symbol errors per user:", errors.tolist(), "reference:", want_errors.tolist())
    if tb.detector.backend() == "cpu":
        assert np.array_equal(errors, want_errors)
    else:
        assert np.all(np.abs(errors - want_errors) <= 2)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
