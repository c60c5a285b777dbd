"""Shardy (`sdy`) ops that jax writes into StableHLO text even for one device.

`jax.jit(f).lower(...).as_text()` and `jax.export(...).mlir_module()` of a function with a
typed PRNG key argument (`jax.random.key`) or a `with_sharding_constraint` hold
`sdy.mesh @m = <[]>` and `%y = sdy.sharding_constraint %x <@m, [{}]> : T`. A sharding says
only how a value would be split across devices; the values themselves are global, so a
constraint or reshard is its operand, and a mesh or sharding group declares nothing a run
needs. Their attributes are kept as text (printed back as read) and optional: upstream's
tests write `"sdy.mesh"() {sym_name = "m", stablehlo.mesh = {...}}` for a mesh that
replica groups name, in generic form without Shardy's own `mesh` (printed back generic,
as an op the custom printer cannot write is). Other Shardy ops
(`manual_computation`, collectives) are not known here: they stay an unknown-op error in
text; jax.export artifacts (.jax) remove them for one device (formats/jax_shardy.py).
"""

from __future__ import annotations

from typing import Any

from ..ir.attributes import Attribute, IntegerAttr, OpaqueAttr, StringAttr
from ..ir.core import Location, Operation
from ..ir.types import I64
from ..ir.verifier import op_error
from .registry import OpDef, declare_op, define_op
from .syntax import Custom


def _pretty(p: Any, mnemonic: str) -> OpaqueAttr:
    """`<body>` at the cursor, kept as the attribute `#sdy.<mnemonic><body>`."""
    body, _ = p.parse_balanced_body("<", ">")
    return OpaqueAttr(f"#sdy.{mnemonic}<{body}>")


def _unprefixed(attr: Attribute, mnemonic: str) -> str:
    """The `<body>` of `#sdy.<mnemonic><body>` (as the custom form writes it); any other
    attribute as it prints."""
    text = str(attr)
    prefix = f"#sdy.{mnemonic}"
    return text[len(prefix):] if text.startswith(prefix + "<") else text


# ---- sdy.mesh @name = <axes> ---------------------------------------------------------------


def _parse_mesh(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    name = p.parse_symbol_name()
    p.expect("=")
    properties = {"sym_name": StringAttr(name), "mesh": _pretty(p, "mesh")}
    attributes = p.parse_optional_attr_dict()
    return p.build_operation(opdef.name, opdef, [], [], properties, attributes, [], None,
                             location)


def _print_mesh(pr: Any, op: Operation) -> None:
    name = op.properties["sym_name"]
    assert isinstance(name, StringAttr)
    pr.write(f" @{name.value} = {_unprefixed(op.properties['mesh'], 'mesh')}")
    pr.write(pr.attr_dict(op.attributes))


declare_op("sdy.mesh", operands=(), results=0, attributes=("sym_name?", "mesh?"),
           syntax=Custom(_parse_mesh, _print_mesh))


# ---- sharding_constraint / reshard: %x <sharding> : T ---------------------------------------


def _parse_constrained(p: Any, opdef: OpDef, location: Location,
                       num_results: int) -> Operation:
    start = p.tok
    operand = p.parse_operand()
    properties = {"sharding": _pretty(p, "sharding")}
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_ = p.parse_type()
    p.resolve_operands([operand], [type_], start)
    return p.build_operation(opdef.name, opdef, [operand], [type_], properties, attributes,
                             [], None, location)


def _print_constrained(pr: Any, op: Operation) -> None:
    pr.write(f" {pr.operands(op.operands)} {_unprefixed(op.properties['sharding'], 'sharding')}")
    pr.write(pr.attr_dict(op.attributes))
    pr.write(f" : {op.results[0].type}")


def _verify_same_type(op: Operation) -> None:
    if op.operands[0].type != op.results[0].type:
        raise op_error(op, f"result type {op.results[0].type} differs from the operand's "
                       f"{op.operands[0].type}")


def _global_value(input: Any) -> Any:
    """The operand: a sharding places a value, it does not change it."""
    return input


for _name in ("sdy.sharding_constraint", "sdy.reshard"):
    define_op(_name, operands=("input",), results=1, attributes=("sharding?",),
              syntax=Custom(_parse_constrained, _print_constrained),
              verify=_verify_same_type)(_global_value)
# a generated plan names the result anew instead of calling (codegen.py)
_global_value.returns_operand = True  # type: ignore[attr-defined]


# ---- sdy.sharding_group %x group_id=N : T ---------------------------------------------------


def _parse_group(p: Any, opdef: OpDef, location: Location, num_results: int) -> Operation:
    start = p.tok
    operand = p.parse_operand()
    p.expect_keyword("group_id")
    p.expect("=")
    group = p.parse_integer()
    attributes = p.parse_optional_attr_dict()
    p.expect(":")
    type_ = p.parse_type()
    p.resolve_operands([operand], [type_], start)
    return p.build_operation(opdef.name, opdef, [operand], [], {
        "group_id": IntegerAttr(group, I64)}, attributes, [], None, location)


def _print_group(pr: Any, op: Operation) -> None:
    group = op.properties["group_id"]
    assert isinstance(group, IntegerAttr)
    pr.write(f" {pr.operands(op.operands)} group_id={group.value}")
    pr.write(pr.attr_dict(op.attributes))
    pr.write(f" : {op.operands[0].type}")


@define_op("sdy.sharding_group", operands=("input",), results=0, attributes=("group_id?",),
           syntax=Custom(_parse_group, _print_group))
def sharding_group(input: Any) -> tuple[()]:
    """Nothing: it asks that values be sharded alike."""
    return ()
