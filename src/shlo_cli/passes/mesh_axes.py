"""Replica groups given as mesh axes (`#stablehlo.replica_group_mesh_axes<mesh = ..., axes =
[...]>`, StableHLO 1.16) flattened to the dense `tensor<groups x size x i64>` table older
versions have.

The mesh is inline (`#stablehlo.mesh<axes = [...], device_ids = ...>`) or a symbol whose op
carries it as `mesh` / `stablehlo.mesh` (an attribute, or a dictionary `{axes = [{name, size}],
device_ids}` as `sdy.mesh` ops have). The devices, laid out on the mesh axes, are transposed so
the communicating axes (in the order named) come last after the others; each row of the
result is then one group (the XLA tile-assignment reading upstream uses)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.attributes import (
    ArrayAttr,
    Attribute,
    DenseElementsAttr,
    DialectAttr,
    DictAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
)
from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic
from ..ir.types import I64, TensorType


def _error(op: Operation, message: str) -> Diagnostic:
    return Diagnostic(message, line=op.location.line or None, col=op.location.col or None)


def expand_op_mesh_axes(op: Operation) -> bool:
    """Replace `op`'s `replica_groups` given as mesh axes by its dense table; False when it
    has none (a located Diagnostic when the mesh cannot be resolved)."""
    attr = op.attr("replica_groups")
    if not (isinstance(attr, DialectAttr) and attr.name == "replica_group_mesh_axes"):
        return False
    op.set_attr("replica_groups", _dense_groups(op, attr))
    return True


def _dense_groups(op: Operation, attr: DialectAttr) -> DenseElementsAttr:
    axes, device_ids = _resolve_mesh(op, attr.get("mesh"))
    comm = []
    for ref in attr.get("axes") or []:
        if not (isinstance(ref, DialectAttr) and ref.name == "axis_ref"):
            raise _error(op, "expected AxisRefAttr in comm_axes")
        if ref.get("sub_axis_info") is not None:
            raise _error(op, "Subaxes are not supported in flattenReplicaGroupMeshAxes")
        comm.append(_text(ref.get("name")))
    names = [name for name, _ in axes]
    for name in comm:
        if name not in names:
            raise _error(op, f"replica_groups: axis '{name}' is not an axis of the mesh")
    total = int(np.prod([size for _, size in axes], dtype=np.int64))
    if device_ids and len(device_ids) != total:
        raise _error(op, f"replica_groups: the mesh has {total} devices but "
                         f"{len(device_ids)} device_ids")
    groups = flatten_groups(axes, comm, device_ids)
    return DenseElementsAttr(TensorType(groups.shape, I64), groups)


def flatten_groups(axes: list[tuple[str, int]], comm: list[str],
                   device_ids: list[int] | None) -> np.ndarray:
    """The replica groups (one per row) of communicating over the `comm` axes of a mesh with
    `axes` (name, size) and `device_ids` (default: 0, 1, ... in row-major mesh order)."""
    names = [name for name, _ in axes]
    sizes = [size for _, size in axes]
    total = int(np.prod(sizes, dtype=np.int64))
    ids = np.arange(total, dtype=np.int64) if not device_ids else \
        np.asarray(device_ids, dtype=np.int64)
    grid = ids.reshape(sizes)
    order = [i for i, name in enumerate(names) if name not in comm]
    order += [names.index(name) for name in comm if name in names]
    group_size = int(np.prod([sizes[names.index(n)] for n in comm if n in names],
                             dtype=np.int64))
    return np.transpose(grid, order).reshape(total // group_size, group_size)


def _lookup_nearest(op: Operation, symbol: str) -> Operation | None:
    """The op named `symbol` in the nearest enclosing symbol table (a module) of `op`."""
    current = op.parent_op
    while current is not None:
        if current.name == "builtin.module":
            for candidate in current.regions[0].blocks[0].operations:
                name = candidate.attr("sym_name")
                if isinstance(name, StringAttr) and name.value == symbol:
                    return candidate
        current = current.parent_op
    return None


def _resolve_mesh(op: Operation, mesh: Any) -> tuple[list[tuple[str, int]], list[int] | None]:
    if isinstance(mesh, DialectAttr) and mesh.name == "mesh":
        return _from_mesh_attr(mesh)
    symbol = mesh.value if isinstance(mesh, SymbolRefAttr) else None
    holder = _lookup_nearest(op, symbol) if symbol is not None else None
    if holder is None:
        raise _error(op, "Failed to find mesh symbol")
    for name in ("mesh", "stablehlo.mesh"):
        found = holder.attr(name)
        if isinstance(found, DialectAttr) and found.name == "mesh":
            return _from_mesh_attr(found)
    found = holder.attr("stablehlo.mesh")
    if isinstance(found, DictAttr):
        resolved = _from_dict(found)
        if resolved is not None:
            return resolved
    raise _error(op, "Failed to find mesh attribute on symbol")


def _text(attr: Any) -> str:
    return attr.value if isinstance(attr, StringAttr) else str(attr)


def _int(attr: Any) -> int:
    return int(attr.value) if isinstance(attr, IntegerAttr) else int(attr)


def _ids(attr: Any) -> list[int] | None:
    if attr is None:
        return None
    if isinstance(attr, DenseElementsAttr):
        return [int(x) for x in np.asarray(attr.value).reshape(-1)]
    if isinstance(attr, (list, tuple)):
        return [_int(x) for x in attr]
    return None


def _from_mesh_attr(mesh: DialectAttr) -> tuple[list[tuple[str, int]], list[int] | None]:
    axes = [(_text(axis.get("name")), _int(axis.get("size")))
            for axis in mesh.get("axes") or []]
    return axes, _ids(mesh.get("device_ids"))


def _from_dict(mesh: DictAttr) -> tuple[list[tuple[str, int]], list[int] | None] | None:
    """`{axes = [{name = "x", size = 2}], device_ids = dense<...>}`; None if malformed."""
    axes_attr = mesh.get("axes")
    if not isinstance(axes_attr, ArrayAttr):
        return None
    axes = []
    for entry in axes_attr.elements:
        if not isinstance(entry, DictAttr):
            return None
        name: Attribute | None = entry.get("name")
        size: Attribute | None = entry.get("size")
        if not isinstance(name, StringAttr) or not isinstance(size, IntegerAttr):
            return None
        axes.append((name.value, int(size.value)))
    return axes, _ids(mesh.get("device_ids"))
