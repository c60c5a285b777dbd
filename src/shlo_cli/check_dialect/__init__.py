"""The `check` dialect upstream's interpreter tests use (`check.expect_eq`,
`check.expect_almost_eq`, ...) and the `check.*` custom-call targets; loaded with the
dialects (an op-definition package, layer 1 in ARCHITECTURE.md)."""
