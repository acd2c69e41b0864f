"""A small Debug Adapter Protocol client that drives the real `wave-lsp debug` subprocess, or
one session of a warm `wave-lsp debug --server` over a socket (`connection`)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time

from server.rawclient import frame, read_messages   # the same framing as LSP
from tests.forkserver import wave_lsp_argv


class DapClient:
    def __init__(self, cwd=None, command: list[str] | None = None, connection=None):
        self.connection = connection
        if connection is not None:
            self.proc = None
            self.writer, self.reading = connection.makefile("wb"), connection.makefile("rb")
        else:
            env = dict(os.environ, PYTHONIOENCODING="utf-8")
            command = command or wave_lsp_argv("debug", env=env)
            self.proc = subprocess.Popen(command, cwd=cwd,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env)
            self.writer, self.reading = self.proc.stdin, self.proc.stdout
        self.seq = 0
        self.responses: dict[int, dict] = {}
        self.events: list[dict] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.event_cursor = 0

    def _read(self):
        for message in read_messages(self.reading):
            with self.cond:
                if message["type"] == "response":
                    self.responses[message["request_seq"]] = message
                else:
                    self.events.append(message)
                self.cond.notify_all()

    def send(self, command: str, arguments: dict | None = None) -> int:
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self.writer.write(frame(message))
        self.writer.flush()
        return self.seq

    def send_raw(self, data: bytes) -> None:
        """Write exactly these bytes (malformed frames included)."""
        self.writer.write(data)
        self.writer.flush()

    def send_message(self, message: dict) -> int:
        """Send a request written by the caller (its fields of any type); its `seq` is the
        next one, whatever it holds."""
        self.seq += 1
        self.send_raw(frame(dict(message, seq=self.seq)))
        return self.seq

    def response(self, seq: int, timeout: float = 30) -> dict:
        with self.cond:
            if not self.cond.wait_for(lambda: seq in self.responses, timeout):
                raise TimeoutError(f"no response to request {seq}")
            return self.responses.pop(seq)

    def request(self, command: str, arguments: dict | None = None, timeout: float = 30,
                ok: bool = True) -> dict:
        seq = self.send(command, arguments)
        with self.cond:
            if not self.cond.wait_for(lambda: seq in self.responses, timeout):
                raise TimeoutError(f"no response to {command}")
            response = self.responses.pop(seq)
        if ok:
            assert response["success"], response
        return response

    def wait_event(self, name: str, timeout: float = 30, **match) -> dict:
        """The next `name` event after the previous wait (events are consumed in order)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(self.event_cursor, len(self.events)):
                    event = self.events[i]
                    body = event.get("body") or {}
                    if event["event"] == name and all(body.get(k) == v for k, v in match.items()):
                        self.event_cursor = i + 1
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {name} event; got {[e['event'] for e in self.events]}")
                self.cond.wait(left)

    def output(self) -> str:
        with self.cond:
            return "".join(e["body"]["output"] for e in self.events if e["event"] == "output")

    # ---- conveniences ------------------------------------------------------------------------
    def start(self, program, breakpoints=(), conditions=None, stop_on_entry=False, args=None,
              kernel=None, exception_filters=None, extra_breakpoints=None, **launch):
        """initialize, launch, breakpoints on `breakpoints` lines, configurationDone."""
        self.capabilities = self.request("initialize", {
            "clientID": "pytest", "adapterID": "wave", "linesStartAt1": True,
            "columnsStartAt1": True, "supportsMemoryReferences": True})["body"]
        arguments = {"program": str(program), "stopOnEntry": stop_on_entry, **launch}
        if args is not None:
            arguments["args"] = args
        if kernel:
            arguments["kernel"] = kernel
        self.launch_response = self.request("launch", arguments, ok=False)
        if not self.launch_response["success"]:
            return self.launch_response
        self.wait_event("initialized")
        conditions = conditions or {}
        bps = [{"line": line, **conditions.get(line, {})} for line in breakpoints]
        self.breakpoints = self.request("setBreakpoints", {
            "source": {"path": str(program)}, "breakpoints": bps})["body"]["breakpoints"]
        if exception_filters is not None:
            self.request("setExceptionBreakpoints", {"filters": exception_filters})
        self.request("configurationDone")
        return self.launch_response

    def stopped(self, timeout: float = 30) -> dict:
        return self.wait_event("stopped", timeout)["body"]

    def top_frame(self, thread_id: int) -> dict:
        return self.request("stackTrace", {"threadId": thread_id})["body"]["stackFrames"][0]

    def scope(self, frame_id: int, name: str) -> list[dict]:
        scopes = self.request("scopes", {"frameId": frame_id})["body"]["scopes"]
        ref = next(s["variablesReference"] for s in scopes if s["name"] == name)
        return self.request("variables", {"variablesReference": ref})["body"]["variables"]

    def lanes(self, frame_id: int, register: str, hex_format: bool = False) -> list[str]:
        registers = self.scope(frame_id, "Registers")
        ref = next(v["variablesReference"] for v in registers if v["name"] == register)
        args = {"variablesReference": ref}
        if hex_format:
            args["format"] = {"hex": True}
        return [v["value"] for v in self.request("variables", args)["body"]["variables"]]

    def finish(self, thread_id: int) -> str:
        """Continue to the end of the run; everything the adapter printed."""
        self.request("continue", {"threadId": thread_id})
        self.wait_event("terminated")
        return self.output()

    def close(self):
        if self.proc is None:
            try:
                self.request("disconnect", {}, timeout=10, ok=False)
            except (TimeoutError, BrokenPipeError, OSError):
                pass
            self.reader.join(timeout=10)       # the adapter closes the connection after it
            self.connection.close()
            return
        try:
            if self.proc.poll() is None:
                self.request("disconnect", {}, timeout=10, ok=False)
        except (TimeoutError, BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class WarmAdapter:
    """A real `wave-lsp debug --server` (the warm adapter the VS Code extension keeps per
    window): started with `flags`, it announces where it listens on its first stdout line."""

    def __init__(self, *flags: str, cwd=None):
        self.proc = subprocess.Popen(wave_lsp_argv("debug", "--server", *flags),
                                     cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.where = json.loads(self.proc.stdout.readline())

    def connect(self) -> DapClient:
        """A client of one new session."""
        if "socket" in self.where:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(self.where["socket"])
        else:
            connection = socket.create_connection(("127.0.0.1", self.where["port"]))
        return DapClient(connection=connection)

    def stop(self) -> int:
        """Ends the adapter as an editor going away does (its stdin closes)."""
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)

