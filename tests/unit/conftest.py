"""Unit-test setup: the conformance harness lives in tests/conformance (outside the installed
package), so its modules are imported from there as `conformance` and `conformance_dynamic`;
the interpreter's binding hooks are loaded before any test (see below)."""

from __future__ import annotations

import sys
from pathlib import Path

HARNESS = str(Path(__file__).resolve().parents[1] / "conformance")
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

# Every binding hook imported before any test runs: tests that plan without some hooks save
# BIND_HOOKS, trim it and restore the saved list, and one saved before the lazy first load
# (registry.bind_hooks) would restore a partial list for every later test in the process.
from shlo_cli.ir.registry import bind_hooks  # noqa: E402

bind_hooks()
