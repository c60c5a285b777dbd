"""The click front ends (`shlo`, `stablehlo-translate`, `stablehlo-opt`, ...): thin layers
that read input, call the layers below and report diagnostics; the top of the stack."""

from .. import lazy_imports

lazy_imports.install()
