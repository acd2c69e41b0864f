"""The order the workers get the test files in (tests/scheduling.py): the files listed as the
longest exist (a renamed one would silently lose its place), and a worker asking for work gets the
first of them still waiting, before the files `loadfile` would hand out first."""

from __future__ import annotations

from collections import OrderedDict

from tests.bytecode import ROOT
from tests.scheduling import FIRST, LongestFirst


def test_every_file_listed_exists_once():
    assert len(set(FIRST)) == len(FIRST)
    assert [name for name in FIRST if not (ROOT / name).is_file()] == []


class _Node:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)


def test_the_longest_waiting_file_goes_first():
    scheduler = LongestFirst.__new__(LongestFirst)        # the queue alone, without a session
    node = _Node()
    collection = ["tests/test_a.py::t1", "tests/test_a.py::t2", f"{FIRST[3]}::t",
                  f"{FIRST[1]}::t", "tests/test_b.py::t"]
    scheduler.workqueue = OrderedDict()         # in loadfile's order: test_a.py first
    for nodeid in collection:
        scheduler.workqueue.setdefault(nodeid.split("::")[0], {})[nodeid] = False
    scheduler.assigned_work = {}
    scheduler.registered_collections = {node: collection}
    while scheduler.workqueue:
        scheduler._assign_work_unit(node)
    assert list(scheduler.assigned_work[node]) == [FIRST[1], FIRST[3], "tests/test_a.py",
                                                   "tests/test_b.py"]
    assert node.sent[0] == [3] and node.sent[2] == [0, 1]
