"""Issue 16: small modules with one job. No module of the package may exceed 800 lines (a
family that outgrows that is split by idea, as stablehlo/ and formats/bytecode/ were)."""

from __future__ import annotations

from pathlib import Path

import shlo_cli

LIMIT = 800


def test_no_module_over_the_limit() -> None:
    root = Path(shlo_cli.__file__).parent
    sizes = {str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
             for path in root.rglob("*.py")}
    assert len(sizes) > 100  # the walk found the package
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
