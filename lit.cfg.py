"""lit configuration for tests/lit: runs our stablehlo-translate / stablehlo-opt / FileCheck.

`make conformance` reuses it for ../shared/conformance through generated site configs that set
`config.test_source_root` (see tests/conformance/conformance.py).
"""

import os
import sys

import lit.formats

config.name = getattr(config, "name", None) or "shlo"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.excludes = ["Inputs", "Output", ".venv", "src", "build", "examples", "benchmarks"]  # noqa: F821

_root = os.path.dirname(os.path.abspath(__file__))
if getattr(config, "test_source_root", None) in (None, _root):  # noqa: F821
    config.test_source_root = _root  # noqa: F821
    config.test_exec_root = os.path.join(_root, "build", "lit")  # noqa: F821

_bin = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])  # noqa: F821
sys.path.insert(0, os.path.join(_root, "tests"))
from filecheck_tool import find_filecheck  # noqa: E402

_filecheck, _filecheck_kind = find_filecheck(_bin)
config.substitutions.append(("FileCheck", _filecheck))  # noqa: F821
config.available_features.add(_filecheck_kind)  # noqa: F821

# jax.export artifacts (outside the repository): tests that read them say
# `REQUIRES: jax-artifacts` and name them as %artifacts/NAME.jax.
_artifacts = os.environ.get("SHLO_JAX_ARTIFACTS", "/work/shared/artifacts")
if os.path.isdir(_artifacts):
    config.available_features.add("jax-artifacts")  # noqa: F821
    config.substitutions.append(("%artifacts", _artifacts))  # noqa: F821
