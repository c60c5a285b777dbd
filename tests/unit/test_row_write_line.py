"""A scan's row write `ys[t] = y` (dynamic_update_slice of one leading row) written inline
in the generated loop (specialize_dynamic_slice's `emit`): in place exactly where the
kernel writes in place (the local alone holds the array, which owns its memory and is
writeable), at the start the kernel clamps to; a copy otherwise, so an array the caller
passed, a frozen constant or a view is never written. The evaluator's bits throughout."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops
from test_indexed_rows import SCAN, SIX

from shlo_cli.dialects.stablehlo import specialize_dynamic_slice

# SCAN writing h (not x) at clamp(2i - 3): starts below 0 and past the last row
PROGRAM = SCAN.replace("LIMIT", "%six").replace(
    "    %p = stablehlo.compare", "    " + SIX + "%p = stablehlo.compare").replace(
    "%u = stablehlo.reshape %x", "%u = stablehlo.reshape %h2").replace(
    "dynamic_update_slice %ys, %u, %i,", "dynamic_update_slice %ys, %u, %at,").replace(
    "    %ys2 =", """    %two = stablehlo.constant dense<2> : tensor<i32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %i2 = stablehlo.multiply %i, %two : tensor<i32>
    %at = stablehlo.subtract %i2, %three : tensor<i32>
    %ys2 =""")
ZEROS = "%zeros = stablehlo.constant dense<-0.0> : tensor<6x1x4xf32>\n  "


@pytest.mark.parametrize("initial", ["argument", "constant", "view"])
def test_row_writes_are_the_evaluators(initial: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (PROGRAM.replace("%ys = %ys0", "%ys = %zeros").replace(
        "  %c0 =", "  " + ZEROS + "%c0 =", 1) if initial == "constant" else PROGRAM)
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((6, 1, 4)).astype(np.float32)
    xs[1, 0, 2], xs[3, 0, 0], xs[4, 0, 1] = np.nan, -0.0, 1e-42
    ys0 = np.full((6, 1, 4), 7.0, np.float32)
    if initial == "view":
        ys0 = np.full((6, 1, 8), 7.0, np.float32)[:, :, ::2]
    before = ys0.copy()
    args = [xs, rng.standard_normal((1, 4)).astype(np.float32), ys0, np.array(6, np.int32)]
    got, sources = run_loops(text, args, True, monkeypatch)
    want, _ = run_loops(text, args, False, monkeypatch)
    assert "_REFS(" in sources[0]
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
    assert ys0.tobytes() == before.tobytes()  # (the caller's array: never written)


MADE = {"alone": "np.zeros((6, 1, 4), np.float32)",
        "held": "np.zeros((6, 1, 4), np.float32); other = x",
        "frozen": "np.zeros((6, 1, 4), np.float32); x.flags.writeable = False",
        "view": "np.zeros((6, 1, 8), np.float32)[:, :, ::2]"}


def _written(made: str, start: str) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(the array the line started from, the line's result, the kernel's calls) for the
    emitted line in a function whose local alone holds the array made as `MADE[made]`."""
    kernel = specialize_dynamic_slice._dynamic_update_slice((6, 1, 4), (1, 1, 4), None)
    calls: list[int] = []

    def fallback(*args: Any) -> Any:
        calls.append(1)
        return kernel.in_place(*args)
    ns: dict[str, Any] = {"K": fallback, "np": np}
    code = kernel.in_place.emit("K", ["x", "u", start, "z", "z"], ns)
    ns["u"], ns["z"] = np.full((1, 1, 4), 2.0, np.float32), np.int32(0)
    exec(f"def f():\n    x = {MADE[made]}\n"  # noqa: S102
         f"    v = {code}\n    return x, v\n", ns)
    x, v = ns["f"]()
    return x, v, calls


@pytest.mark.parametrize("start,row", [("2", 2), ("-4", 0), ("9", 5), ("np.int64(3)", 3)])
def test_line_writes_in_place_only_when_alone(start: str, row: int) -> None:
    x, v, calls = _written("alone", start)
    assert v is x and not calls  # (in place: the line itself)
    assert (v[row] == 2.0).all() and (np.delete(v, row, axis=0) == 0.0).all()
    for made in ("held", "frozen", "view"):  # (the kernel copies)
        x, v, calls = _written(made, start)
        assert v is not x and calls == [1] and not x.any()
        assert (v[row] == 2.0).all() and (np.delete(v, row, axis=0) == 0.0).all()
