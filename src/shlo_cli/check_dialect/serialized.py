"""Reading back what `interpreter.probe` serialized (for `check.expect_serialized_eq`).

`interpreter.probe` writes `<dir>/probe<N>.npy` and appends `id,type,path` to
`<dir>/index.csv`; the N-th (0-based) record of a probe id is its N-th iteration.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..ir.diagnostics import EvaluationError

INDEX_FILE = "index.csv"


def probe_directory(ctx: Any) -> str:
    options = getattr(ctx, "options", None) or {}
    return str(options.get("probe_output_dir") or "")


def load_probe(ctx: Any, probe_id: str, iteration: int, dtype: np.dtype) -> tuple[str, np.ndarray]:
    """(type text, data) of the `iteration`-th serialization of `probe_id`."""
    directory = probe_directory(ctx)
    record = _find_record(directory, probe_id, iteration) if directory else None
    if record is None:
        raise EvaluationError(f"Failed to find serialized data for probe {probe_id}.")
    type_text, path = record
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        raise EvaluationError(f"Failed to verify serialized tensor {probe_id}.") from None
    if data.dtype != dtype:
        if data.dtype.itemsize != np.dtype(dtype).itemsize:
            raise EvaluationError(f"Failed to verify serialized tensor {probe_id}.")
        data = np.ascontiguousarray(data).view(dtype).reshape(data.shape)
    return type_text, data


def _find_record(directory: str, probe_id: str, iteration: int) -> tuple[str, str] | None:
    try:
        with open(os.path.join(directory, INDEX_FILE), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    seen = 0
    for line in lines:
        fields = line.split(",", 2)
        if len(fields) != 3 or fields[0] != probe_id:
            continue
        if seen == iteration:
            return fields[1], fields[2]
        seen += 1
    return None
