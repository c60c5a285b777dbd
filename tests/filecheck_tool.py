"""Which FileCheck the lit suites run: LLVM's own when this machine has it, else the Python
clone from the test extra (`filecheck`).

Upstream's files are written for LLVM's FileCheck; the clone differs in corner cases (e.g.
it checks a CHECK-NOT up to the end of the next CHECK-NEXT match, LLVM up to its start). So
LLVM's is preferred: `$FILECHECK` if set, else `FileCheck` on PATH, else the newest
`/usr/lib/llvm-*/bin/FileCheck`. lit gets the feature `llvm-filecheck` or `python-filecheck`,
which entries of tests/conformance_xfail.txt may name as their condition.
"""

from __future__ import annotations

import glob
import os
import re
import shutil


def _llvm_version(path: str) -> tuple[int, ...]:
    found = re.search(r"llvm-(\d+)", path)
    return (int(found.group(1)),) if found else (0,)


def find_filecheck(venv_bin: str) -> tuple[str, str]:
    """(command, feature) of the FileCheck to run."""
    chosen = os.environ.get("FILECHECK")
    if chosen:
        kind = "python-filecheck" if os.path.basename(chosen) == "filecheck" else "llvm-filecheck"
        return chosen, kind
    llvm = shutil.which("FileCheck")
    if llvm is None:
        installed = sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), key=_llvm_version)
        llvm = installed[-1] if installed else None
    if llvm is not None:
        return llvm, "llvm-filecheck"
    clone = shutil.which("filecheck", path=venv_bin) or shutil.which("filecheck") or "filecheck"
    return clone, "python-filecheck"
