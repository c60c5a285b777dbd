"""jax's non-LAPACK custom calls (placeholder; filled in below)."""
