"""hlo-expand's flag handling: XLA's compound flags and pipeline order, tsl spellings, and
expanders picked up from the registry (as the cholesky/triangular_solve modules will be)."""

from __future__ import annotations

import pytest

from shlo_cli.commands import hlo_expand
from shlo_cli.passes.expanders import EXPANDERS, Expander, pipeline


def test_compound_flags_and_xla_order() -> None:
    assert pipeline.expand_selection(["batch_norm_expander"]) == [
        "batch_norm_grad_expander", "batch_norm_inference_expander",
        "batch_norm_training_expander"]
    # Command-line order does not matter: XLA's pipeline order does.
    assert pipeline.expand_selection(["rng_bit_generator_expander", "rng_expander"]) == [
        "rng_expander", "rng_bit_generator_philox_expander",
        "rng_bit_generator_three_fry_expander"]
    everything = pipeline.expand_selection([], expand_all=True)
    assert set(everything) == set(pipeline.available())
    assert everything.index("legalize_unary_einsum") < everything.index("legalize_einsum")
    assert everything.index("rng_expander") < everything.index(
        "rng_bit_generator_philox_expander")


def test_tsl_spellings() -> None:
    bools = {"expand_all", "rng_expander", "split-input-file"}
    assert hlo_expand.normalize_flags(
        ["-expand_all", "--rng_expander=false", "-o=out.mlir", "-", "-split-input-file=1"],
        bools) == ["--expand_all", "--output_file=out.mlir", "-", "--split-input-file"]
    assert hlo_expand.normalize_flags(["-output_file", "x", "in.mlir"], bools) == [
        "--output_file=x", "in.mlir"]
    for bad, reason in ((["--spmd_expander"], "not supported"),
                        (["--output_format=pb"], "not supported"),
                        (["--expand_all=yes"], "expected true or false"),
                        (["--nope"], "unknown flag")):
        with pytest.raises(hlo_expand.FlagRefused, match=reason):
            hlo_expand.normalize_flags(bad, bools)


def test_registered_expanders_are_picked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """An expander registered under an XLA flag (e.g. cholesky_expander) becomes a flag,
    runs in XLA's place in the pipeline and is part of --expand_all; unregistered XLA
    flags are refused as not available."""
    ran: list[str] = []
    monkeypatch.setitem(EXPANDERS, "cholesky_expander",
                        Expander("cholesky_expander", lambda m: ran.append("cholesky"),
                                 "Expands cholesky"))
    monkeypatch.delitem(EXPANDERS, "triangular_solve_expander", raising=False)
    assert "cholesky_expander" in hlo_expand.expander_flags()
    selection = pipeline.expand_selection(["rng_expander", "cholesky_expander",
                                           "batch_norm_grad_expander"])
    assert selection == ["batch_norm_grad_expander", "cholesky_expander", "rng_expander"]
    assert "cholesky_expander" in pipeline.expand_selection([], expand_all=True)
    bools = set(hlo_expand.expander_flags())
    with pytest.raises(hlo_expand.FlagRefused, match="no triangular_solve expander"):
        hlo_expand.normalize_flags(["--triangular_solve_expander"], bools)
