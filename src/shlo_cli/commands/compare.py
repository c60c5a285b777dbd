"""`shlo compare A B`: compare two `.npz`/`.npy` files array by array (e.g. saved results
against expected ones, or two `--dump-intermediates` files); says where the first value
differs and by how much (abs, rel, ULP). Exit 0 when everything matches, 1 otherwise."""

from __future__ import annotations

import sys

import click

from ..interpreter.compare import Tolerance, compare_sets
from ..interpreter.io import InputError, from_bits, read_array_file
from .interpret_io import format_comparisons
from .terminal import color_diagnostic


@click.command("compare")
@click.argument("actual", metavar="A.npz")
@click.argument("expected", metavar="B.npz")
@click.option("--rtol", type=float, default=None, help="Relative tolerance (default per dtype).")
@click.option("--atol", type=float, default=None, help="Absolute tolerance (default per dtype).")
@click.option("--ulp", type=float, default=None, help="Compare floats by ULP distance.")
def compare_command(actual: str, expected: str, rtol: float | None, atol: float | None,
                    ulp: float | None) -> None:
    """Compare the arrays of A with those of B (B is the reference)."""
    try:
        a = _arrays(actual)
        b = _arrays(expected)
    except InputError as e:
        sys.stderr.write(color_diagnostic(f"error: {e}", sys.stderr) + "\n")
        sys.exit(1)
    for key, value in b.items():
        if key in a:
            a[key] = from_bits(a[key], value.dtype)
            b[key] = from_bits(value, a[key].dtype)
    comparisons = compare_sets(a, b, Tolerance(rtol, atol, ulp))
    sys.stdout.write(format_comparisons(comparisons, sys.stdout))
    failed = [c for c in comparisons if not c.ok]
    if comparisons and not failed:
        sys.stdout.write(f"all {len(comparisons)} arrays match\n")
    sys.exit(1 if failed else 0)


def _arrays(path: str) -> dict:
    arrays = read_array_file(path)
    if "" in arrays:  # a .npy file: one unnamed array
        arrays = {"array": arrays.pop("")}
    return arrays
