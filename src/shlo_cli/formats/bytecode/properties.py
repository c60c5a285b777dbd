"""Which ops are registered and how their properties are encoded (ODS's `writeProperties`).

ODS writes an op's inherent attributes sorted by name, each as a required attribute
(its index) or an optional one (`index << 1 | present`, 0 when absent); optional means
`OptionalAttr`, default-valued or `UnitAttr`. An op with no inherent attribute has no
properties at all. The answer comes from the op's dialect hooks, then the tables here, then
the op's declaration in the registry (its `attributes`, `name?` marking the optional ones,
as upstream's ODS declares them).
"""

from __future__ import annotations

from functools import lru_cache

from ...ir import registry
from .hooks import OpSpec, hooks_for

_TABLES: dict[str, OpSpec] = {
    "func.func": (("arg_attrs", True), ("function_type", False), ("no_inline", True),
                  ("res_attrs", True), ("sym_name", False), ("sym_visibility", True)),
    "func.call": (("arg_attrs", True), ("callee", False), ("no_inline", True),
                  ("res_attrs", True)),
    "func.call_indirect": (("arg_attrs", True), ("res_attrs", True)),
    "func.constant": (("value", False),),
    "func.return": (),
}


@lru_cache(maxsize=4096)
def op_spec(name: str) -> OpSpec | None:
    """The op's properties in encoding order; `()` for a registered op without any; None
    for an op we do not know (written as unregistered, properties as one attribute)."""
    dialect = name.split(".", 1)[0]
    hooks = hooks_for(dialect)
    if hooks is not None and hooks.op_properties is not None:
        spec = hooks.op_properties(name)
        if spec is not None:
            return spec
    spec = _TABLES.get(name)
    if spec is not None:
        return spec
    opdef = registry.lookup(name)
    if opdef is None:
        return None
    required = set(opdef.required)
    return tuple((p, p not in required) for p in sorted(opdef.properties))


def is_registered(name: str) -> bool:
    return op_spec(name) is not None


class PropertySpec:
    """How an op's properties are written, per op name (kept for the process): `items`,
    the inherent attribute names in encoding order (None: an unregistered op, `()`: no
    properties), `optional` per item, and `names` as a set."""

    __slots__ = ("items", "optional", "names")

    def __init__(self, spec: OpSpec | None) -> None:
        self.items = None if spec is None else tuple(item for item, _ in spec)
        self.optional = () if spec is None else tuple(flag for _, flag in spec)
        self.names = frozenset(self.items or ())
