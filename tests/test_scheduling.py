"""The order the workers get the test files in (tests/scheduling.py): the files it names exist (a
renamed one would silently lose its place), every VS Code file runs in a lane, and a worker asking
for work gets the first unit of `FIRST` still waiting, before the files `loadfile` would hand out
first."""

from __future__ import annotations

from collections import OrderedDict

from tests.bytecode import ROOT
from tests.scheduling import FIRST, LANE_OF, LANES, LongestFirst


def test_every_file_named_exists_once():
    named = [*LANE_OF, *(name for name in FIRST if name not in LANES)]
    assert len(set(named)) == len(named)
    assert [name for name in named if not (ROOT / name).is_file()] == []


def test_every_vscode_file_runs_in_a_lane():
    files = {str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "vscode").glob("test_*.py")}
    assert files == set(LANE_OF)


class _Node:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)


def test_a_lane_is_one_unit_and_the_longest_waiting_unit_goes_first():
    scheduler = LongestFirst.__new__(LongestFirst)        # the queue alone, without a session
    node = _Node()
    lane, (one, two, *_) = next(iter(LANES.items()))
    collection = ["tests/test_a.py::t1", "tests/test_a.py::t2", f"{FIRST[3]}::t",
                  f"{one}::t", "tests/test_b.py::t", f"{two}::t"]
    scheduler.workqueue = OrderedDict()         # in loadfile's order: test_a.py first
    for nodeid in collection:
        scheduler.workqueue.setdefault(scheduler._split_scope(nodeid), {})[nodeid] = False
    scheduler.assigned_work = {}
    scheduler.registered_collections = {node: collection}
    while scheduler.workqueue:
        scheduler._assign_work_unit(node)
    assert list(scheduler.assigned_work[node]) == [lane, FIRST[3], "tests/test_a.py",
                                                   "tests/test_b.py"]
    assert node.sent[0] == [3, 5] and node.sent[2] == [0, 1]
