"""StableHLO ops, one module per op family (see the spec's op index)."""
