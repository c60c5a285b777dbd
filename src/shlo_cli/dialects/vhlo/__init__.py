"""The VHLO dialect: versioned StableHLO for portable artifacts (upstream `vhlo`).

- `version`: the version window (MINIMUM 0.9.0 .. CURRENT 1.20.0), `resolve_target`,
  `bytecode_version`.
- `types` / `attributes`: the data model, one immutable record (`ir.record`) per upstream type /
  attribute with fields in upstream's parameter order (the bytecode encodings' order);
  TYPES_BY_MNEMONIC, ATTRS_BY_MNEMONIC, ENUM_ATTRS index them.
- `ops`: OP_SPECS, every `vhlo.*_vN` op with its version range and operand / attribute /
  region / result names; registering them makes the parser and verifier know them.
- `type_conversion`, `stablehlo_attrs`: builtin/StableHLO <-> VHLO values, used by the
  passes (passes/stablehlo_legalize_to_vhlo.py, vhlo_to_version.py,
  vhlo_legalize_to_stablehlo.py).

Importing this package lets the parser read `!vhlo.*` types and `#vhlo*` attributes.
"""

from __future__ import annotations

from ...ir.parser import register_dialect_attributes, register_dialect_types
from . import ops as ops  # registers every vhlo op
from .attributes import parse_vhlo_attribute
from .types import parse_vhlo_type

register_dialect_types("vhlo", parse_vhlo_type)
register_dialect_attributes("vhlo", parse_vhlo_attribute)
