"""The VHLO dialect: versioned StableHLO for portable artifacts (upstream `vhlo`).

`version` holds the version window, `types` / `attributes` the data model (one frozen
dataclass per upstream type / attribute, fields in upstream's parameter order),
`type_conversion` the builtin <-> VHLO type mapping. Importing this package lets the parser
read `!vhlo.*` types and `#vhlo*` attributes.
"""

from __future__ import annotations

from ...ir.parser import register_dialect_attributes, register_dialect_types
from .attributes import parse_vhlo_attribute
from .types import parse_vhlo_type

register_dialect_types("vhlo", parse_vhlo_type)
register_dialect_attributes("vhlo", parse_vhlo_attribute)
