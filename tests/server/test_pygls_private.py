"""The private members of pygls the server relies on still exist (`protocol.PYGLS_PRIVATE`):
after a pygls upgrade, this test names each one that was removed or renamed, instead of the
server failing somewhere at run time. And no module but `server/protocol.py` reaches one."""

from __future__ import annotations

import importlib
import re
import threading
from pathlib import Path

import pytest

import wave_lsp
from wave_lsp.server.protocol import PYGLS_PRIVATE, converter, set_stop_event, stop_event
from wave_lsp.server.server import create_server

SERVER = Path(wave_lsp.__file__).parent / "server"


def _owner(where: str):
    module, _, attribute = where.rpartition(".")
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError:
        return getattr(importlib.import_module(module), attribute)


@pytest.fixture(scope="module")
def server():
    return create_server()


@pytest.mark.parametrize("where,name", PYGLS_PRIVATE, ids=[f"{w}.{n}" for w, n in PYGLS_PRIVATE])
def test_the_private_member_exists(where, name, server):
    owner = _owner(where)
    instances = [server, server.protocol]      # instance attributes exist once constructed
    found = hasattr(owner, name) or any(isinstance(i, owner) and hasattr(i, name)
                                        for i in instances if isinstance(owner, type))
    assert found, f"pygls no longer has {where}.{name}: see wave_lsp/server/protocol.py"


def test_the_accessors_reach_the_real_objects(server):
    assert hasattr(converter(server), "unstructure")
    assert stop_event(server) is None           # pygls makes one when it starts serving
    event = threading.Event()
    set_stop_event(server, event)
    assert stop_event(server) is event and server._stop_event is event


def test_only_the_protocol_module_reaches_pygls_private_members():
    names = {name for _, name in PYGLS_PRIVATE}
    pattern = re.compile(r"(?<!self)(?<!super\(\))\.(" + "|".join(map(re.escape, names)) + r")\b")
    offenders = []
    for path in sorted(SERVER.glob("*.py")):
        if path.name == "protocol.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) or "pygls" in line and re.search(r"import _\w", line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, offenders


def test_the_check_can_fail():
    """A member pygls never had is reported missing."""
    owner = _owner("pygls.protocol.JsonRPCProtocol")
    assert not hasattr(owner, "_no_such_member_in_any_pygls")
