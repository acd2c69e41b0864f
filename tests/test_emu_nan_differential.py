"""NaN operands against upstream's own `wave-emu`, bit for bit, on both engines.

Every f32, f16, bf16 and f64 arithmetic instruction and conversion (tests/nan_kernels.py) on
operand rows that meet quiet and signalling NaNs of both signs with payloads, infinities, zeros
and numbers in every pair and order, in workgroups of 1, 7, 32 and 100 lanes (numpy's loops then
pass vector bodies and scalar tails); the results of upstream, of the numpy engine and of the
native core (which must run them itself) are equal, and upstream's also follow the rule that
nan_kernels.expected writes down. Hypothesis draws further rows, lane counts and wave widths.
Skipped with a reason where ../shared/upstream is absent; a failure under CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nan_kernels as nk
from emu_native.native_support import need_core
from shared import SHARED

from wave_lsp.emu import RunOptions, run

UPSTREAM = SHARED / "upstream" / "bin" / "wave-emu"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    if not UPSTREAM.is_file():
        message = f"upstream wave-emu not found at {UPSTREAM}"
        if os.environ.get("CI"):
            pytest.fail(message + " (required under CI)")
        pytest.skip(message)
    need_core()
    return tmp_path_factory.mktemp("nan")


def engine_outputs(family: str, words: list[int], group: int, width: int) -> dict:
    """{engine: (lanes, words out)} of the numpy engine and the native core."""
    lanes = len(words) // nk.WORDS_IN
    total = -(-lanes // group) * group
    source = nk.kernel(family, total)
    out = {}
    for engine in ("numpy", "native"):
        report = run(source, nk.make_launch(family, words, group, width),
                     RunOptions(initcheck=False, engine=engine))
        assert (report.engine, report.fallback) == (engine, None), report.fallback
        out[engine] = nk.outputs(family, report.device_memory.tobytes(), total)[:lanes]
    return out


def assert_as_upstream(family: str, triples, group: int, width: int, work: Path) -> None:
    words = nk.lane_words(family, triples)
    up = nk.upstream_outputs(UPSTREAM, family, words, group, width, work)[:len(triples)]
    assert nk.rule_mismatches(family, triples, up) == []
    for engine, got in engine_outputs(family, words, group, width).items():
        differ = np.flatnonzero((got != up).any(axis=1))
        assert not differ.size, (engine, [
            ([hex(x) for x in triples[i]], [hex(x) for x in got[i]], [hex(x) for x in up[i]])
            for i in differ[:4]])


@pytest.mark.parametrize("group", nk.LANE_COUNTS)
@pytest.mark.parametrize("family", sorted(nk.FAMILIES))
def test_every_nan_pair_as_upstream(family, group, work):
    assert_as_upstream(family, nk.rows(family), group, 32, work)


@st.composite
def triples(draw, family: str):
    values = st.sampled_from(nk.NANS[family] + nk.OTHERS[family])
    divisor = values.filter(lambda v: family != "f32" or v & 0x7FFFFFFF)   # see nan_kernels
    return draw(st.lists(st.tuples(values, divisor, values), min_size=1, max_size=120))


@settings(max_examples=int(os.environ.get("WAVE_NAN_EXAMPLES", "12")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data(), family=st.sampled_from(sorted(nk.FAMILIES)),
       group=st.sampled_from(nk.LANE_COUNTS), width=st.sampled_from([4, 16, 32]))
def test_drawn_nan_rows_as_upstream(work, data, family, group, width):
    assert_as_upstream(family, data.draw(triples(family)), group, width, work)
