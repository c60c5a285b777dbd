"""ARCHITECTURE.md names exactly the packages and top-level modules of src/shlo_cli, and every
package says its job in its `__init__.py` docstring."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "shlo_cli"


def documented_units(text: str) -> set[str]:
    """Top-level bullets of the `## Packages` section: `- \\`ir/\\`` or `- \\`api.py\\``."""
    section = text.split("\n## Packages", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `([A-Za-z_]+/|[A-Za-z_]+\.py)`", section, re.MULTILINE))


def units_on_disk(package: Path) -> set[str]:
    """Subpackages (`name/`) and modules (`name.py`) directly under the package."""
    units = {f"{p.parent.name}/" for p in package.glob("*/__init__.py")}
    units |= {p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    return units


def test_architecture_lists_every_package_and_module() -> None:
    assert documented_units((REPO / "ARCHITECTURE.md").read_text()) == units_on_disk(PACKAGE)


def test_only_top_level_bullets_of_the_section_count() -> None:
    text = ("# x\n## Packages\n\n- `ir/`: the IR.\n  - `nested/`: not top level\n"
            "- `api.py`: API\n## Next\n- `x/`")
    assert documented_units(text) == {"ir/", "api.py"}


def test_every_package_has_a_docstring() -> None:
    missing = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("__init__.py"))
               if not ast.get_docstring(ast.parse(p.read_text()))]
    assert missing == []
