"""Which expanders `hlo-expand` runs, and in what order: XLA's flag facts
(xla/tools/hlo_expand.cc) next to the registry of the expanders this build has.

- Individual flags name one expander each; XLA's pipeline runs them in a fixed order
  (batch norm, cholesky, rng, rng_bit_generator philox then three_fry, triangular_solve)
  whatever the order on the command line. Our legalizations of ops HLO does not have run
  before them (unary_einsum first: it becomes an einsum).
- Compound flags: `--batch_norm_expander` (the three batch norm expanders),
  `--rng_bit_generator_expander` (philox and three_fry) and `--expand_all` (every expander,
  legalizations included, so the output holds only ops HLO has).
- XLA flags shlo does not implement are refused, never ignored (`UNIMPLEMENTED`).

HLO has no CHLO: `import_chlo` first legalizes CHLO ops as XLA's StableHLO import does
(`--chlo-legalize-to-stablehlo`), and reports any it cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ...ir.core import Module
from ...ir.verifier import op_error
from ..chlo_legalize import legalize as legalize_chlo
from . import EXPANDERS, Expander, load_all

LEGALIZATIONS = ("legalize_unary_einsum", "legalize_einsum", "legalize_broadcast",
                 "legalize_create_token", "legalize_cross_replica_sum", "legalize_dot",
                 "legalize_torch_index_select")

# XLA's individual expander flags, in the order its pipeline runs them, with its help text.
XLA_EXPANDERS: dict[str, str] = {
    "batch_norm_grad_expander": "Expands batch_norm_grad op",
    "batch_norm_inference_expander": "Expands batch_norm_inference op",
    "batch_norm_training_expander": "Expands batch_norm_training op",
    "cholesky_expander": "Expands cholesky op",
    "rng_expander": "Expands rng op",
    "rng_bit_generator_philox_expander":
        "Expands rng_bit_generator op using philox prng algorithm",
    "rng_bit_generator_three_fry_expander":
        "Expands rng_bit_generator op using three_fry prng algorithm",
    "triangular_solve_expander": "Expands triangular_solve op",
}

COMPOUND: dict[str, tuple[tuple[str, ...], str]] = {
    "batch_norm_expander": (
        ("batch_norm_grad_expander", "batch_norm_inference_expander",
         "batch_norm_training_expander"),
        "Expands batch_norm_grad, batch_norm_inference and batch_norm_training ops"),
    "rng_bit_generator_expander": (
        ("rng_bit_generator_philox_expander", "rng_bit_generator_three_fry_expander"),
        "Expands rng_bit_generator op on all prng algorithms"),
}
EXPAND_ALL_HELP = "Runs every expander and legalization above"

UNIMPLEMENTED: dict[str, str] = {
    "spmd_expander": "SPMD partitioning (sharding propagation and the SPMD partitioner) is "
                     "not implemented by shlo",
    "input_format": "the input is always StableHLO (MLIR text), not HLO text or an HloProto",
    "output_format": "the output is always StableHLO (MLIR text), not HLO text or an "
                     "HloProto",
}


def available() -> dict[str, Expander]:
    """Every registered expander (the cholesky and triangular_solve expanders live in
    modules of their own and appear here once present)."""
    return load_all()


def order() -> list[str]:
    """Every known expander flag in run order: legalizations, XLA's pipeline, then any other
    registered expander by name."""
    known = [*LEGALIZATIONS, *XLA_EXPANDERS]
    return known + sorted(set(available()) - set(known))


def expand_selection(flags: Iterable[str], expand_all: bool = False) -> list[str]:
    """The expanders `flags` (individual or compound) select, in run order; with
    `expand_all` every available one."""
    chosen: set[str] = set()
    for flag in flags:
        chosen.update(COMPOUND[flag][0] if flag in COMPOUND else (flag,))
    if expand_all:
        chosen.update(available())
    return [name for name in order() if name in chosen]


def import_chlo(module: Module) -> None:
    """Legalize CHLO ops to StableHLO; a CHLO op left over (a pattern that does not apply,
    e.g. a dynamic broadcast along non-trailing dimensions) is a located error."""
    if not any(op.name.startswith("chlo.") for op in module.op.walk()):
        return
    legalize_chlo(module)
    for op in module.op.walk():
        if op.name.startswith("chlo."):
            raise op_error(op, "has no StableHLO legalization here, and hlo-expand's output "
                               "holds no CHLO")


def run(module: Module, names: Iterable[str],
        after_each: Callable[[str, Module], None] | None = None) -> None:
    """Run the named expanders in the given order; `after_each(name, module)` follows each
    (e.g. a verifier)."""
    for name in names:
        EXPANDERS[name].run(module)
        if after_each is not None:
            after_each(name, module)
