#
# Copyright 2026 gr-gpumimo authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Multi-channel SigMF recordings: the source plays back, bit for bit and channel by
channel, what the sink recorded (cf32_le and ci16_le), with sample rate, frequency and
start time, and UHD's rx_time gaps kept as captures; the SigMF reference library reads
and validates what the sink writes; bad recordings are refused with a clear error or,
truncated, played as far as they go."""

import datetime
import hashlib
import json
import os
import time

import numpy as np
import pmt
import pytest

from gnuradio import blocks, gr, gpumimo

SEED = int(os.environ.get("GPUMIMO_TEST_SEED", np.random.SeedSequence().entropy % 2**31))
print(f"GPUMIMO_TEST_SEED={SEED}")

T0 = (1795000000, 0.25)  # an rx_time: seconds, fraction


def rx_time(offset, secs, frac):
    return gr.tag_utils.python_to_tag((offset, pmt.intern("rx_time"),
                                       pmt.make_tuple(pmt.from_uint64(secs), pmt.from_double(frac)),
                                       pmt.PMT_NIL))


def record(prefix, x, datatype, gap_at=None, rate=30.72e6, freq=3.5e9):
    tb = gr.top_block()
    sink = gpumimo.sigmf_sink(str(prefix), x.shape[0], rate, freq, datatype,
                              description="qa_sigmf")
    for c in range(x.shape[0]):
        tags = [rx_time(0, *T0)] + ([rx_time(gap_at, T0[0] + 1, 0.5)] if gap_at else [])
        tb.connect(blocks.vector_source_c(x[c].tolist(), False, 1, tags if c == 0 else []),
                   (sink, c))
    tb.run()
    return sink


def play(collection, repeat_items=None, verify_hashes=True):
    tb = gr.top_block()
    src = gpumimo.sigmf_source(str(collection), repeat=repeat_items is not None,
                               verify_hashes=verify_hashes)
    sinks = []
    for c in range(src.channels()):
        s = blocks.vector_sink_c()
        if repeat_items:
            tb.connect((src, c), blocks.head(gr.sizeof_gr_complex, repeat_items), s)
        else:
            tb.connect((src, c), s)
        sinks.append(s)
    tb.run()
    return src, np.array([s.data() for s in sinks]), sinks


def noise(rng, channels, n, scale=0.3):
    return (scale * (rng.normal(size=(channels, n)) + 1j * rng.normal(size=(channels, n)))).astype(np.complex64)


def test_cf32_round_trip_is_bit_exact_with_time_rate_frequency_and_gaps(tmp_path):
    rng = np.random.default_rng(SEED)
    x = noise(rng, 3, 5000)
    record(tmp_path / "rec", x, "cf32_le", gap_at=1700)
    src, y, sinks = play(tmp_path / "rec.sigmf-collection")
    np.testing.assert_array_equal(y, x)  # every channel, in order
    assert src.sample_rate() == 30.72e6 and src.center_freq() == 3.5e9
    start = datetime.datetime.fromtimestamp(T0[0], datetime.timezone.utc)
    assert src.start_time() == start.strftime("%Y-%m-%dT%H:%M:%S") + ".250000000Z"
    times = [(t.offset, pmt.to_uint64(pmt.tuple_ref(t.value, 0)), pmt.to_double(pmt.tuple_ref(t.value, 1)))
             for t in sinks[2].tags() if pmt.symbol_to_string(t.key) == "rx_time"]
    assert times == [(0, T0[0], T0[1]), (1700, T0[0] + 1, 0.5)]
    keys = {pmt.symbol_to_string(t.key): t for t in sinks[0].tags() if t.offset == 0}
    assert pmt.to_double(keys["rx_rate"].value) == 30.72e6
    assert pmt.to_double(keys["rx_freq"].value) == 3.5e9


def test_ci16_round_trip_is_bit_exact_and_clipping_is_counted(tmp_path):
    rng = np.random.default_rng(SEED + 1)
    q = rng.integers(-32767, 32768, size=(2, 4000, 2))
    qf = q.astype(np.float32) / np.float32(32767)  # float32 division, as the source
    x = (qf[..., 0] + 1j * qf[..., 1]).astype(np.complex64)
    kept = x[1, 10].imag
    x[1, 10] = 2.0 + 1j * kept  # beyond full scale: clamped, counted
    sink = record(tmp_path / "n310", x, "ci16_le")
    assert sink.clipped_samples() == 1
    raw = np.fromfile(tmp_path / "n310_ch0.sigmf-data", np.int16).reshape(-1, 2)
    np.testing.assert_array_equal(raw, q[0])  # the file holds the integers
    _, y, _ = play(tmp_path / "n310.sigmf-collection")
    x[1, 10] = 1.0 + 1j * kept
    np.testing.assert_array_equal(y, x)


def test_the_reference_library_reads_and_validates_the_recording(tmp_path):
    try:
        from sigmf import sigmffile
    except ImportError:
        if os.environ.get("GPUMIMO_ALLOW_MISSING_DATA") == "1":
            pytest.skip("the sigmf library is missing (scripts/install-deps.sh installs it)")
        raise
    rng = np.random.default_rng(SEED + 2)
    x = noise(rng, 4, 1000)
    record(tmp_path / "lib", x, "cf32_le", gap_at=600)
    col = sigmffile.fromfile(str(tmp_path / "lib.sigmf-collection"))
    col.verify_stream_hashes()  # raises on a mismatch
    assert col.get_stream_names() == [f"lib_ch{c}" for c in range(4)]
    for c in range(4):
        f = sigmffile.fromfile(str(tmp_path / f"lib_ch{c}.sigmf-meta"))
        f.validate()  # the SigMF schema
        assert f.get_global_field("core:sample_rate") == 30.72e6
        assert [cap["core:sample_start"] for cap in f.get_captures()] == [0, 600]
        np.testing.assert_array_equal(f.read_samples(), x[c])


def test_bad_recordings_are_refused_with_the_file_named(tmp_path):
    rng = np.random.default_rng(SEED + 3)
    record(tmp_path / "r", noise(rng, 2, 300), "cf32_le")
    col = tmp_path / "r.sigmf-collection"
    meta1 = tmp_path / "r_ch1.sigmf-meta"

    def refused(match):
        with pytest.raises(RuntimeError, match=match):
            gpumimo.sigmf_source(str(col))

    data1 = tmp_path / "r_ch1.sigmf-data"
    data1.rename(tmp_path / "away")
    refused("r_ch1.sigmf-data: is missing")
    (tmp_path / "away").rename(data1)

    original = meta1.read_text()
    meta = json.loads(original)
    meta["global"]["core:sample_rate"] = 15.36e6
    meta1.write_text(json.dumps(meta))
    refused("does not match its SHA-512")  # edited behind the collection's back
    c = json.loads(col.read_text())
    for s in c["collection"]["core:streams"]:
        s.pop("hash")
    col.write_text(json.dumps(c))
    refused("sample-rate mismatch")
    meta["global"]["core:sample_rate"] = 30.72e6
    meta["global"]["core:datatype"] = "ri8"
    meta1.write_text(json.dumps(meta))
    refused("datatype 'ri8' is not supported")
    meta1.write_text(original[:-20])  # cut short
    refused("is not valid JSON")
    col.write_text("{\"collection\": {}}")
    refused("has no core:streams")
    with pytest.raises(RuntimeError, match="cannot be opened"):
        gpumimo.sigmf_source(str(tmp_path / "nonesuch.sigmf-collection"))


def test_a_truncated_channel_plays_to_the_shortest_whole_sample(tmp_path):
    rng = np.random.default_rng(SEED + 4)
    x = noise(rng, 2, 1000)
    record(tmp_path / "t", x, "cf32_le")
    data0 = tmp_path / "t_ch0.sigmf-data"
    data0.write_bytes(data0.read_bytes()[:-8 * 100 - 3])  # 100 samples and 3 bytes short
    # The recording's own hash tells the data was cut; told not to look, it plays.
    with pytest.raises(RuntimeError, match="t_ch0.sigmf-data: does not match core:sha512"):
        play(tmp_path / "t.sigmf-collection")
    src, y, _ = play(tmp_path / "t.sigmf-collection", verify_hashes=False)
    assert src.samples() == 899
    np.testing.assert_array_equal(y, x[:, :899])


def test_the_data_hash_is_written_and_checked(tmp_path):
    """core:sha512 is the SHA-512 of the data file as written (hashlib agrees), and a
    data file changed after recording is refused before anything plays."""
    rng = np.random.default_rng(SEED + 6)
    x = noise(rng, 2, 500)
    record(tmp_path / "h", x, "ci16_le")
    for c in range(2):
        meta = json.loads((tmp_path / f"h_ch{c}.sigmf-meta").read_text())
        data = (tmp_path / f"h_ch{c}.sigmf-data").read_bytes()
        assert meta["global"]["core:sha512"] == hashlib.sha512(data).hexdigest()
    _, y, _ = play(tmp_path / "h.sigmf-collection")
    assert y.shape == (2, 500)
    data1 = tmp_path / "h_ch1.sigmf-data"
    corrupted = bytearray(data1.read_bytes())
    corrupted[1234] ^= 0x10  # one bit
    data1.write_bytes(bytes(corrupted))
    with pytest.raises(RuntimeError, match="h_ch1.sigmf-data: does not match core:sha512"):
        gpumimo.sigmf_source(str(tmp_path / "h.sigmf-collection"))
    assert gpumimo.sigmf_source(str(tmp_path / "h.sigmf-collection"),
                                verify_hashes=False).samples() == 500


@pytest.mark.parametrize("datatype", ["ci16_le", "cf32_le"])
def test_a_data_file_changed_after_the_check_ends_the_stream(tmp_path, datatype):
    """The bytes played are hashed as they are read: a data file rewritten between
    make()'s check and playback (or between passes) no longer matches at the end of the
    pass, and the stream ends there (logged, one work failure) instead of playing on
    unchecked. The same recording unchanged loops five times, hashed on every pass,
    with no failure."""
    rng = np.random.default_rng(SEED + 16)
    x = noise(rng, 2, 700)
    record(tmp_path / "w", x, datatype)
    collection = str(tmp_path / "w.sigmf-collection")

    def loop(src):
        tb = gr.top_block()
        sinks = [blocks.vector_sink_c() for _ in range(2)]
        for c in range(2):
            tb.connect((src, c), blocks.head(gr.sizeof_gr_complex, 5 * 700), sinks[c])
        tb.run()
        return [len(s.data()) for s in sinks]

    src = gpumimo.sigmf_source(collection, repeat=True)
    assert loop(src) == [3500, 3500] and src.work_failures() == 0
    src = gpumimo.sigmf_source(collection, repeat=True)  # checked here
    data1 = tmp_path / "w_ch1.sigmf-data"
    changed = bytearray(data1.read_bytes())
    changed[999] ^= 0x01  # in place: the source's open file sees it
    data1.write_bytes(bytes(changed))
    assert loop(src) == [700, 700]
    assert src.work_failures() == 1
    # Told not to verify, it neither checks at make() nor while playing.
    unchecked = gpumimo.sigmf_source(collection, repeat=True, verify_hashes=False)
    assert loop(unchecked) == [3500, 3500] and unchecked.work_failures() == 0


def test_hostile_collections_are_refused_without_telling_what_exists(tmp_path):
    """A stream name may not leave the collection's folder: absolute, "..", or a link out
    of it are refused with one message whether or not the file exists, before any file
    is opened."""
    rng = np.random.default_rng(SEED + 7)
    outside = tmp_path / "outside"
    outside.mkdir()
    record(outside / "secret", noise(rng, 1, 100), "cf32_le")  # a real recording there
    inside = tmp_path / "in" / "deep"
    inside.mkdir(parents=True)
    record(inside / "ok", noise(rng, 1, 100), "cf32_le")
    (inside / "link.sigmf-meta").symlink_to(outside / "secret_ch0.sigmf-meta")
    (inside / "link.sigmf-data").symlink_to(outside / "secret_ch0.sigmf-data")
    col = inside / "hostile.sigmf-collection"
    messages = set()
    for name in ["../../outside/secret_ch0", "../../outside/nothing_here",
                 str(outside / "secret_ch0"), str(outside / "nothing_here"), "link",
                 "a/../../b", ""]:
        col.write_text(json.dumps({"collection": {"core:streams": [{"name": name}]}}))
        with pytest.raises(RuntimeError, match="leaves the collection's folder") as e:
            gpumimo.sigmf_source(str(col))
        messages.add(str(e.value))
    assert len(messages) == 1, messages  # the same words whatever lies there

    def refused(match, streams=None, meta_edit=None):
        meta_path = inside / "ok_ch0.sigmf-meta"
        original = meta_path.read_text()
        if meta_edit:
            meta = json.loads(original)
            meta_edit(meta)
            meta_path.write_text(json.dumps(meta))
        col.write_text(json.dumps({"collection": {"core:streams": streams or [{"name": "ok_ch0"}]}}))
        try:
            with pytest.raises(RuntimeError, match=match):
                gpumimo.sigmf_source(str(col))
        finally:
            meta_path.write_text(original)

    refused("lists the stream 'ok_ch0' twice", [{"name": "ok_ch0"}, {"name": "ok_ch0"}])
    # The same file under other spellings, through a link inside the folder or a second
    # hard link: one antenna's samples never play as two.
    refused("lists the stream './ok_ch0' twice", [{"name": "ok_ch0"}, {"name": "./ok_ch0"}])
    refused("lists the stream 'ok_ch0' twice", [{"name": ".//ok_ch0"}, {"name": "ok_ch0"}])
    for ext in ("sigmf-meta", "sigmf-data"):
        (inside / f"alias_ch0.{ext}").symlink_to(f"ok_ch0.{ext}")
    refused("streams 'ok_ch0' and 'alias_ch0' are the same data file",
            [{"name": "ok_ch0"}, {"name": "alias_ch0"}])
    (inside / "hard_ch0.sigmf-meta").write_text((inside / "ok_ch0.sigmf-meta").read_text())
    os.link(inside / "ok_ch0.sigmf-data", inside / "hard_ch0.sigmf-data")
    refused("streams 'ok_ch0' and 'hard_ch0' are the same data file",
            [{"name": "ok_ch0"}, {"name": "hard_ch0"}])
    refused("core:sample_start has the wrong type",
            meta_edit=lambda m: m["captures"][0].update({"core:sample_start": -5}))
    refused("is not ISO 8601 UTC",
            meta_edit=lambda m: m["captures"][0].update({"core:datetime": "2026-13-45T99:61:00Z"}))
    refused("is not ISO 8601 UTC",
            meta_edit=lambda m: m["captures"][0].update({"core:datetime": "2025-02-29T00:00:00Z"}))
    refused("past the data's 100 samples",
            meta_edit=lambda m: m["captures"].append({"core:sample_start": 100}))
    refused("core:sha512 is not 128 hexadecimal digits",
            meta_edit=lambda m: m["global"].update({"core:sha512": "not a hash"}))
    # A binary metadata file: an error whose message arrives (bytes escaped), not an
    # empty RuntimeError().
    (inside / "ok_ch0.sigmf-meta").write_bytes(b"\xff\xfe{\x00\x81garbage\x00")
    col.write_text(json.dumps({"collection": {"core:streams": [{"name": "ok_ch0"}]}}))
    with pytest.raises(RuntimeError) as e:
        gpumimo.sigmf_source(str(col))
    assert "ok_ch0.sigmf-meta: is not valid JSON" in str(e.value)


def test_repeat_plays_again_with_a_time_tag_at_each_start(tmp_path):
    rng = np.random.default_rng(SEED + 5)
    x = noise(rng, 1, 250)
    record(tmp_path / "p", x, "cf32_le")
    _, y, sinks = play(tmp_path / "p.sigmf-collection", repeat_items=600)
    np.testing.assert_array_equal(y[0], np.tile(x[0], 3)[:600])
    starts = sorted(t.offset for t in sinks[0].tags() if pmt.symbol_to_string(t.key) == "rx_time")
    assert starts == [0, 250, 500]


def test_a_collection_of_many_names_is_read_in_linear_time(tmp_path):
    """300,000 stream names (pairwise comparison took 7.6 s for 100,000 and hours for a
    64 MiB collection): the names are checked and the first missing file reported within
    a few seconds."""
    col = tmp_path / "many.sigmf-collection"
    names = [{"name": f"s{i}"} for i in range(300000)]
    col.write_text(json.dumps({"collection": {"core:streams": names}}))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="s0.sigmf-meta"):
        gpumimo.sigmf_source(str(col))
    assert time.monotonic() - start < 5.0


def test_unusable_samples_in_a_cf32_recording_play_as_zeros(tmp_path):
    """A cf32 recording whose data another tool wrote (or a disk damaged) with NaN, Inf
    and 3e38 in it: the source plays them as 0 and counts them (core::is_usable, the
    predicate sigmf_sink records with), nothing else changes, no work() failure."""
    rng = np.random.default_rng(SEED + 11)
    x = noise(rng, 2, 300)
    record(tmp_path / "d", x, "cf32_le")
    data = tmp_path / "d_ch1.sigmf-data"
    y = np.fromfile(data, dtype=np.complex64)
    y[[5, 77, 299]] = [np.nan + 0j, complex(0, np.inf), 3e38]
    y.tofile(data)
    src, out, _ = play(tmp_path / "d.sigmf-collection", verify_hashes=False)
    assert np.all(np.isfinite(out))
    want = y.copy()
    want[[5, 77, 299]] = 0
    np.testing.assert_array_equal(out[1], want)
    np.testing.assert_array_equal(out[0], x[0].astype(np.complex64))
    assert src.unusable_samples() == 3 and src.work_failures() == 0
    # The sink records the same samples as 0: 3e38 is no more usable than NaN.
    tb = gr.top_block()
    sink = gpumimo.sigmf_sink(str(tmp_path / "again"), 1, 1e6, 0.0, "cf32_le")
    tb.connect(blocks.vector_source_c(y.tolist()), sink)
    tb.run()
    assert sink.non_finite_samples() == 3


def test_a_capture_before_1970_is_tagged_as_a_time_unknown(tmp_path):
    """rx_time holds unsigned seconds since 1970: a core:datetime from 1969 plays with
    rx_time (0, 0.0), a time unknown, instead of 2^64 - 1 seconds; the samples play."""
    rng = np.random.default_rng(SEED + 12)
    x = noise(rng, 1, 200)
    record(tmp_path / "old", x, "cf32_le")
    meta_path = tmp_path / "old_ch0.sigmf-meta"
    meta = json.loads(meta_path.read_text())
    meta["captures"][0]["core:datetime"] = "1969-07-20T20:17:40Z"
    meta_path.write_text(json.dumps(meta))
    col = tmp_path / "old.sigmf-collection"
    c = json.loads(col.read_text())
    c["collection"]["core:streams"] = [{"name": "old_ch0"}]  # the metadata's hash is gone
    col.write_text(json.dumps(c))
    src, y, sinks = play(col)
    np.testing.assert_array_equal(y[0], x[0])
    times = [t for t in sinks[0].tags() if pmt.symbol_to_string(t.key) == "rx_time"]
    assert len(times) == 1 and times[0].offset == 0
    assert pmt.to_uint64(pmt.tuple_ref(times[0].value, 0)) == 0
    assert pmt.to_double(pmt.tuple_ref(times[0].value, 1)) == 0.0


def test_metadata_with_millions_of_values_is_refused_unparsed(tmp_path):
    """A metadata file of more JSON values than any recording's (its parsed tree would
    take about 40 times its size: 2.7 GB for 64 MiB) is refused, naming it, before it
    is parsed; a few thousand annotations are fine."""
    rng = np.random.default_rng(SEED + 13)
    record(tmp_path / "m", noise(rng, 1, 100), "cf32_le")
    meta_path = tmp_path / "m_ch0.sigmf-meta"
    meta = json.loads(meta_path.read_text())
    col = tmp_path / "m.sigmf-collection"
    c = json.loads(col.read_text())
    c["collection"]["core:streams"] = [{"name": "m_ch0"}]  # the metadata's hash is gone
    col.write_text(json.dumps(c))
    meta["annotations"] = [{"core:sample_start": i, "core:sample_count": 1} for i in range(3000)]
    meta_path.write_text(json.dumps(meta))
    assert gpumimo.sigmf_source(str(col)).samples() == 100
    meta["annotations"] = [0] * (1 << 20)
    meta_path.write_text(json.dumps(meta))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="m_ch0.sigmf-meta: holds more than 1048576 JSON values"):
        gpumimo.sigmf_source(str(col))
    assert time.monotonic() - start < 10
