"""Unit-test setup: the conformance harness lives in tests/conformance (outside the installed
package), so its modules are imported from there as `conformance` and `conformance_dynamic`."""

from __future__ import annotations

import sys
from pathlib import Path

HARNESS = str(Path(__file__).resolve().parents[1] / "conformance")
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)
