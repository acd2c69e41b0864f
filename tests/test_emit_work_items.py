"""Work-items in WAVE's order in every backend (`isa/kernel_abi.py`): WAVE numbers a workgroup's
threads x fastest, and waves are consecutive runs of that number, so the generated code must put
WAVE's x on the vendor's fastest dimension. SYCL's fastest is dimension 2: the test computes,
for 1-, 2- and 3-D workgroups and grids, SYCL's linear id of every work-item from the emitted
`nd_range` and the WAVE ids the emitted special-register expressions give it, and checks they
agree; upstream's text (x on dimension 0) fails the same check for 2- and 3-D workgroups. PTX,
HIP and Metal read the vendor's own x, y, z, which those vendors linearise x fastest."""

from __future__ import annotations

import itertools
import re

import pytest

from wave_lsp.asm.backends import emit
from wave_lsp.isa.kernel_abi import VENDOR_DIMENSION

AXES = "xyz"
SPECIALS = ("thread_id", "workgroup_id", "workgroup_size", "grid_size")
REGISTER_OF = {f"{name}_{axis}": 4 * i + j for i, name in enumerate(SPECIALS)
               for j, axis in enumerate(AXES)}
SOURCE = (".kernel ids\n.registers 16\n"
          + "".join(f"    mov_sr r{r}, sr_{name}\n" for name, r in REGISTER_OF.items())
          + "    halt\n.end\n")
SYCL_CALL = {"get_local_id": "thread_id", "get_group": "workgroup_id",
             "get_local_range": "workgroup_size", "get_group_range": "grid_size"}


def sycl_reading(text: str) -> dict[str, tuple[str, int]]:
    """Per WAVE special register (`thread_id_x`), the nd_item call and dimension that the
    emitted SYCL reads it with."""
    out = {}
    for name, r in REGISTER_OF.items():
        found = re.search(rf"\br{r} = \(uint32_t\)it\.(\w+)\((\d)\);", text)
        assert found, name
        out[name] = (found.group(1), int(found.group(2)))
    return out


def sycl_ranges(text: str, grid, workgroup) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The global and local `range<3>` of the emitted nd_range, for this launch."""
    found = re.search(r"nd_range<3>\(range<3>\(([^)]*)\),\s*range<3>\(([^)]*)\)\)", text)
    assert found
    sizes = {f"grid_{a}": g for a, g in zip(AXES, grid)}
    sizes.update({f"wg_{a}": w for a, w in zip(AXES, workgroup)})

    def value(expression: str) -> int:
        product = 1
        for factor in expression.split("*"):
            product *= sizes[factor.strip()]
        return product

    return tuple(tuple(value(e) for e in part.split(",")) for part in found.groups())


def sycl_order(text: str, grid, workgroup):
    """For every work-item in SYCL's linear order (dimension 2 fastest; SYCL 2020 §3.11.1),
    (linear group id, linear local id, what each WAVE special register reads)."""
    reading = sycl_reading(text)
    global_range, local = sycl_ranges(text, grid, workgroup)
    groups = tuple(g // l for g, l in zip(global_range, local))
    values = {"get_local_range": local, "get_group_range": groups}
    for gi, group in enumerate(itertools.product(*(range(n) for n in groups))):
        for li, item in enumerate(itertools.product(*(range(n) for n in local))):
            per_call = {**values, "get_local_id": item, "get_group": group}
            yield gi, li, {name: per_call[call][dim] for name, (call, dim) in reading.items()}


def wave_linear(ids: dict, kind: str, size: str) -> int:
    """WAVE's linear number: x + X * (y + Y * z)."""
    x, y, z = (ids[f"{kind}_{a}"] for a in AXES)
    sx, sy = ids[f"{size}_x"], ids[f"{size}_y"]
    return x + sx * (y + sy * z)


SHAPES = [((3, 1, 1), (64, 1, 1)), ((2, 3, 1), (16, 16, 1)), ((2, 2, 2), (4, 4, 4)),
          ((1, 2, 3), (8, 2, 2))]


@pytest.mark.parametrize("grid,workgroup", SHAPES)
def test_sycl_numbers_work_items_as_wave_does(grid, workgroup):
    text = emit(SOURCE, "sycl").text
    seen = 0
    for gi, li, ids in sycl_order(text, grid, workgroup):
        assert tuple(ids[f"workgroup_size_{a}"] for a in AXES) == workgroup
        assert tuple(ids[f"grid_size_{a}"] for a in AXES) == grid
        assert wave_linear(ids, "thread_id", "workgroup_size") == li    # sub-groups: WAVE's waves
        assert wave_linear(ids, "workgroup_id", "grid_size") == gi
        seen += 1
    assert seen == grid[0] * grid[1] * grid[2] * workgroup[0] * workgroup[1] * workgroup[2]


@pytest.mark.parametrize("grid,workgroup", SHAPES)
def test_upstreams_sycl_order_differs_beyond_one_dimension(grid, workgroup):
    text = emit(SOURCE, "sycl", compat=True).text
    agree = all(wave_linear(ids, "thread_id", "workgroup_size") == li
                for _, li, ids in sycl_order(text, grid, workgroup))
    assert agree == (workgroup[1] == workgroup[2] == 1)


def test_sycl_maps_x_to_dimension_2():
    reading = sycl_reading(emit(SOURCE, "sycl").text)
    assert {name: dim for name, (_, dim) in reading.items()} == {
        f"{name}_{a}": {"x": 2, "y": 1, "z": 0}[a] for name in SPECIALS for a in AXES}
    assert {call for call, _ in reading.values()} == set(SYCL_CALL)
    assert all(SYCL_CALL[call] == name.rsplit("_", 1)[0] for name, (call, _) in reading.items())


@pytest.mark.parametrize("target", ["ptx", "hip", "metal"])
def test_the_other_backends_read_the_vendors_own_axis(target):
    """CUDA, HIP and Metal linearise x fastest themselves: x, y and z read their x, y and z
    (and HIP's wave number is threadIdx.x + threadIdx.y * X + threadIdx.z * X * Y)."""
    text = emit(SOURCE, target).text
    for name, r in REGISTER_OF.items():
        prefix = {"ptx": rf"mov\.u32 %r{r}, %\w+", "hip": rf"\br{r} = \(uint32_t\)\w+",
                  "metal": rf"\br{r} = \(uint32_t\)\w+"}[target]
        found = re.search(prefix + r"\.([xyz])\b", text)
        assert found and found.group(1) == VENDOR_DIMENSION[target][name[-1]], name
    if target == "hip":
        assert ("(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * "
                "blockDim.y) / warpSize") in text
