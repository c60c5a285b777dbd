"""The IR and its text form, the lowest layer: operations, values, blocks, regions, types,
attributes, the parser and printer, the verifier, diagnostics and the op registry.

Nothing here imports an upper layer; dialects plug in through `registry` (see
ARCHITECTURE.md)."""
