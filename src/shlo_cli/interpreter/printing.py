"""Compatibility re-export: value printing lives in `shlo_cli.ir.value_text`, below the
dialects whose ops (interpreter.print, check failures) print values."""

from ..ir.value_text import (  # noqa: F401
    format_dense,
    format_element,
    format_elements,
    format_index,
    format_tensor,
    format_value,
    runtime_type,
)
