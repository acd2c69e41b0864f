"""The state of a batch of workgroups executed in lock-step: one lane array over all their waves.

Lanes are laid out workgroup-major, then wave, then lane (`lane index = (wg * waves_per_wg +
wave) * W + lane`), so a reshape to (waves, W) gives per-wave views for wave operations.
Registers are a (register_count, lanes) uint32 matrix (one contiguous row per register);
f32 instructions use a float32 view of the same memory.
"""

from __future__ import annotations

import numpy as np

from ..isa import PREDICATE_COUNT
from .alu import fma_scratch
from .geometry import Geometry  # noqa: F401 - re-exported


class Fault(Exception):
    """Raised by an instruction; the engine adds the workgroup, wave, PC and line."""

    def __init__(self, kind: str, message: str, lanes: np.ndarray | None = None, **details):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.lanes = lanes          # batch lane indices involved (int array) or None
        self.details = details


class Batch:
    """Registers, predicates, masks and control stacks of the workgroups `first .. first+count`."""

    def __init__(self, geo: Geometry, first_wg: int, wg_count: int, device: np.ndarray,
                 set_regs: dict[int, int]):
        self.geo = geo
        self.first_wg = first_wg
        self.wg_count = wg_count
        W = geo.wave_width
        self.W = W
        self.lanes_per_wg = geo.lanes_per_wg
        self.n = n = wg_count * geo.lanes_per_wg
        self.n_waves = n // W
        self.R = np.zeros((geo.registers, n), dtype=np.uint32)
        for reg, value in set_regs.items():
            if 0 <= reg < geo.registers:
                self.R[reg] = value & 0xFFFFFFFF
        self.F = self.R.view(np.float32)
        self.P = np.zeros((PREDICATE_COUNT, n), dtype=bool)
        local_in_wg = np.tile(np.arange(geo.lanes_per_wg, dtype=np.int64), wg_count)
        self.local_thread = local_in_wg
        self.alive = local_in_wg < geo.threads_per_wg      # in range and not halted
        self.active = self.alive.copy()
        self.full = bool(self.active.all())
        self.any_active = bool(self.active.any())
        self.wg_of_lane = np.repeat(np.arange(wg_count, dtype=np.int64), geo.lanes_per_wg)
        self.present = self.alive.reshape(self.n_waves, W).any(axis=1)
        self.present_count = int(self.present.sum())
        self.ctrl: list = []          # control-flow frames (see control.py)
        self.calls: list = []         # call frames
        self.log = None               # overlap.AccessLog while several workgroups run together
        self.epochs: dict = {}        # racecheck.EpochLog per memory space ("local", "device")
        # memories
        self.device = device
        self.device32 = device.view(np.uint32) if device.size % 4 == 0 else None
        self.device_size = device.size
        L = geo.local_memory
        self.local_size = L
        self.local_stride = (L + 3) & ~3
        self.local = np.zeros(self.local_stride * wg_count + 16, dtype=np.uint8)
        self.local32 = self.local.view(np.uint32)
        self.local_base = self.wg_of_lane * self.local_stride
        self.local_base_words = self.local_base >> 2
        self.scratch_rows: dict[int, tuple] = {}     # fma work arrays per row count, see fma
        self.fragments: dict[tuple[str, int], np.ndarray] = {}
        self._specials: dict[int, np.ndarray] = {}

    def fma_scratch(self, rows: int = 0) -> tuple:
        """`alu.fma_scratch` for one register row (rows 0) or (rows, lanes), kept per batch."""
        work = self.scratch_rows.get(rows)
        if work is None:
            work = self.scratch_rows[rows] = fma_scratch((rows, self.n) if rows else self.n)
        return work

    # ---- masks -------------------------------------------------------------------------------
    def set_active(self, mask: np.ndarray) -> None:
        self.active = mask
        self.any_active = bool(mask.any())
        self.full = self.any_active and bool(mask.all())

    def guard_mask(self, pred: int, negated: bool) -> np.ndarray:
        p = self.P[pred]
        return self.active & ~p if negated else self.active & p

    def refresh_present(self, lanes: np.ndarray) -> None:
        """Waves are present (stepping through the current region) when `lanes` has any lane."""
        self.present = lanes.reshape(self.n_waves, self.W).any(axis=1)
        self.present_count = int(self.present.sum())

    def word_view(self, local: bool):
        """(size in bytes, u32 view, per-lane word base or None) of local or device memory."""
        if local:
            return self.local_size, self.local32, self.local_base_words
        if self.device32 is None:
            return -1, None, None          # never takes the word fast path
        return self.device_size, self.device32, None

    # ---- special registers -------------------------------------------------------------------
    def special(self, index: int) -> np.ndarray:
        cached = self._specials.get(index)
        if cached is None:
            cached = self._specials[index] = self._compute_special(index)
        return cached

    def _compute_special(self, index: int) -> np.ndarray:
        """Special register `index` for every lane: per-thread values are computed for one
        workgroup and tiled, per-workgroup values repeated, constants filled."""
        geo = self.geo
        wx, wy, wz = geo.workgroup
        gx, gy, gz = geo.grid
        t = np.arange(self.lanes_per_wg, dtype=np.int64)
        per_thread = {0: lambda: t % wx, 1: lambda: (t // wx) % wy, 2: lambda: t // (wx * wy),
                      3: lambda: t // self.W, 4: lambda: t % self.W}
        per_group = {5: lambda g: g % gx, 6: lambda g: (g // gx) % gy,
                     7: lambda g: g // (gx * gy)}
        constants = {8: wx, 9: wy, 10: wz, 11: gx, 12: gy, 13: gz, 14: self.W,
                     15: geo.waves_per_wg, 16: 1, 17: 4, 18: 4, 19: 4}
        if index in per_thread:
            pattern = (per_thread[index]() & 0xFFFFFFFF).astype(np.uint32)
            return np.tile(pattern, self.wg_count)
        if index in per_group:
            groups = np.arange(self.first_wg, self.first_wg + self.wg_count, dtype=np.int64)
            values = (per_group[index](groups) & 0xFFFFFFFF).astype(np.uint32)
            return np.repeat(values, self.lanes_per_wg)
        return np.full(self.n, constants.get(index, 0) & 0xFFFFFFFF, dtype=np.uint32)

    # ---- naming for reports ------------------------------------------------------------------
    def describe_lane(self, lane: int) -> tuple[tuple[int, int, int], int, int]:
        """(workgroup id, wave within the workgroup, lane within the wave) of a batch lane."""
        wg = lane // self.lanes_per_wg
        within = lane % self.lanes_per_wg
        return self.geo.workgroup_id(self.first_wg + wg), within // self.W, within % self.W

    def global_thread(self, lane: int) -> int:
        wg = lane // self.lanes_per_wg
        return (self.first_wg + wg) * self.geo.threads_per_wg + lane % self.lanes_per_wg
