"""A matrix product's BLAS call as a generated line (specialize_dot._matrix_line): for two
C-contiguous matrices, each as it is or contracted on its first axis (a backward pass's
x^T g, g W^T), the line hands BLAS the views the kernel's `plain` hands it, so its bits
are the kernel's and the general path's (NaN, -0.0 and infinities included; the
`normalize` argument as codegen passes it); so does a matrix times a vector (one
column); any other layout calls the kernel, and products whose transposed view plain
would copy, or whose vector blas_threads would multiply, get no line."""

from __future__ import annotations

import numpy as np
import pytest
from bind_helpers import run_first_op
from test_ordered_dot import _data, _layouts, _program

from shlo_cli.dialects.stablehlo import specialize


def _line(kernel: object, ns: dict[str, object], normalize: str | None) -> None:
    args = ["l", "r"] + ([normalize] if normalize else [])
    exec(f"def f(l, r, z=True):\n    return {kernel.emit('K', args, ns)}\n", ns)  # type: ignore[attr-defined]  # noqa: S102


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("lhs,rhs,out,contract", [
    ((16, 5), (16, 32), (5, 32), "[0] x [0]"), ((16, 32), (20, 32), (16, 20), "[1] x [1]"),
    ((16, 32), (32, 20), (16, 20), "[1] x [0]"), ((12, 16), (20, 12), (16, 20), "[0] x [1]"),
    ((9, 3), (9, 1), (3, 1), "[0] x [0]"), ((64, 128), (128,), (64,), "[1] x [0]"),
    ((128, 12), (128,), (12,), "[0] x [0]"),
])
@pytest.mark.parametrize("normalize", [None, "False", "z"])
def test_line_is_the_kernel(elem: str, lhs: tuple, rhs: tuple, out: tuple, contract: str,
                            normalize: str | None) -> None:
    text = _program(lhs, rhs, out, elem, contract)
    dtype = np.float32 if elem == "f32" else np.float64
    rng = np.random.default_rng(sum(lhs) * 13 + sum(rhs))
    _, kernel = run_first_op(text, [_data(rng, lhs, dtype), _data(rng, rhs, dtype)],
                             specialize.bind_specialized, True)
    calls: list[int] = []

    def recorded(*args: np.ndarray) -> np.ndarray:
        calls.append(len(args))
        return kernel(*args)  # type: ignore[operator, no-any-return]
    ns: dict[str, object] = {"K": recorded}
    _line(kernel, ns, normalize)
    for trial in range(8):
        a, b = _data(rng, lhs, dtype), _data(rng, rhs, dtype)
        if trial % 2:
            a[...], b[...] = -0.0, 0.0  # (all -0.0 sums: the normalization decides)
        z = bool(trial % 3)
        want, _ = run_first_op(text, [a, b], specialize.bind_specialized, False)
        for i, (x, w) in enumerate(zip(_layouts(a), _layouts(b), strict=True)):
            calls.clear()
            with np.errstate(all="ignore"):
                got = ns["f"](x, w, z)  # type: ignore[operator]
                norm = normalize is None or (normalize == "z" and z)
                expected = kernel(x, w, norm)  # type: ignore[operator]
            assert got.shape == out and got.dtype == np.dtype(dtype)
            assert got.tobytes() == expected.tobytes()
            if i == 0:  # (C-contiguous operands: the line's own product, the general path's)
                assert calls == []
                assert normalize is not None or got.tobytes() == want.tobytes()


@pytest.mark.parametrize("lhs,rhs,out,contract", [
    ((4, 16), (1, 16), (4, 1), "[1] x [1]"),  # (a (1, 16) row transposed is C-contiguous)
    ((2, 16, 4), (2, 16, 3), (2, 4, 3), "[1] x [1]"),  # (batched)
    ((512, 256), (256,), (512,), "[1] x [0]"),  # (a vector through blas_threads' matmul)
])
def test_no_line_where_plain_copies(lhs: tuple, rhs: tuple, out: tuple, contract: str) -> None:
    dims = "batching_dims = [0] x [0], " if len(lhs) == 3 else ""
    text = _program(lhs, rhs, out, "f32", contract).replace(
        "contracting_dims", dims + "contracting_dims")
    rng = np.random.default_rng(3)
    _, kernel = run_first_op(text, [_data(rng, lhs, np.float32), _data(rng, rhs, np.float32)],
                             specialize.bind_specialized, True)
    assert getattr(kernel, "emit", None) is None
