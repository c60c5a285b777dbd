"""Op contracts: every op declares its operands, results, attributes and regions; arity
checks read the declaration, and an evaluator that disagrees with it fails at registration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.ir import registry
from shlo_cli.ir.diagnostics import Diagnostic
from shlo_cli.ir.parser import parse_source
from shlo_cli.ir.registry import OpContractError, declare_op, define_op
from shlo_cli.ir.verifier import operand_arity, result_arity, verify_module


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch) -> str:
    """A throwaway `contract` dialect; ops registered in it are removed after the test."""
    registry.all_ops()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_DIALECTS", registry._DIALECTS | {"contract"})
    return "contract"


def test_every_op_is_declared() -> None:
    ops = registry.all_ops()
    assert len(ops) > 300
    for name, opdef in ops.items():
        assert opdef.operands is not None, name
        assert opdef.results == "*" or isinstance(opdef.results, int), name
        assert opdef.properties == {a.rstrip("?") for a in opdef.attributes}, name
        for operand in opdef.operands:
            assert operand.lstrip("*").rstrip("?").isidentifier(), (name, operand)


def test_evaluators_bind_only_declared_names() -> None:
    """What each evaluator takes by keyword is a declared attribute, region or engine name."""
    for name, opdef in registry.all_ops().items():
        regions = {r.rstrip("*") for r in opdef.regions}
        for param in opdef.evaluate_params:
            assert (param in opdef.properties or param in regions
                    or param in registry.ENGINE_PARAMS), (name, param)


def test_misspelled_keyword_fails_at_registration(scratch: str) -> None:
    def compare(lhs: Any, rhs: Any, *, comparsion_direction: str) -> Any:
        return lhs

    with pytest.raises(OpContractError, match=r"op 'contract\.cmp'.*'comparsion_direction'"):
        define_op("contract.cmp", operands=("lhs", "rhs"), results=1,
                  attributes=("comparison_direction",))(compare)
    assert "contract.cmp" not in registry._REGISTRY


def test_keyword_for_undeclared_region_fails(scratch: str) -> None:
    def loop(*operands: Any, body: Any) -> Any:
        return operands

    with pytest.raises(OpContractError, match="'body'"):
        define_op("contract.loop", operands=("*operands",), results="*", regions=("bdy",))(loop)


def test_positional_operands_must_match(scratch: str) -> None:
    def unary(x: Any) -> Any:
        return x

    with pytest.raises(OpContractError, match="takes 1 positional operands, but the op "
                                              "declares 2"):
        define_op("contract.two", operands=("lhs", "rhs"), results=1)(unary)

    def fixed(x: Any, y: Any) -> Any:
        return x

    with pytest.raises(OpContractError, match="declares 1 or more"):
        define_op("contract.many", operands=("first", "*rest"), results=1)(fixed)

    def anything(*xs: Any) -> Any:  # `*args` takes every count
        return xs[0]

    define_op("contract.any", operands=("lhs", "rhs"), results=1)(anything)


def test_callable_objects_are_checked_too(scratch: str) -> None:
    """Evaluators that are not plain functions are read through `inspect.signature`."""

    class Kernel:
        def __call__(self, x: Any, *, dimensons: Any) -> Any:
            return x

    with pytest.raises(OpContractError, match="'dimensons'"):
        define_op("contract.obj", operands=("x",), results=1,
                  attributes=("dimensions",))(Kernel())
    with pytest.raises(OpContractError, match="takes 1 positional operands"):
        define_op("contract.obj", operands=(), results=1,
                  attributes=("dimensons",))(Kernel())
    define_op("contract.obj", operands=("x",), results=1, attributes=("dimensons",))(Kernel())
    assert registry._REGISTRY["contract.obj"].evaluate_params == ("dimensons",)


def test_bad_declarations_fail(scratch: str) -> None:
    with pytest.raises(OpContractError, match="results must be a count or"):
        declare_op("contract.bad", operands=(), results="many")
    with pytest.raises(OpContractError, match="tuples of names"):
        declare_op("contract.bad", operands="lhs", results=1)  # type: ignore[arg-type]


def test_arity_comes_from_the_declaration(scratch: str) -> None:
    """An evaluator taking `*args` does not make the op variadic; the declaration rules."""

    def kernel(*xs: np.ndarray) -> np.ndarray:
        return xs[0]

    define_op("contract.pair", operands=("lhs", "rhs"), results=1)(kernel)
    define_op("contract.opt", operands=("lhs", "rhs?"), results=1)(kernel)
    declare_op("contract.multi", operands=("first", "*rest"), results="*")
    assert operand_arity(registry._REGISTRY["contract.pair"]) == (2, 2)
    assert operand_arity(registry._REGISTRY["contract.opt"]) == (1, 2)
    assert operand_arity(registry._REGISTRY["contract.multi"]) == (1, None)
    assert result_arity(registry._REGISTRY["contract.pair"]) == 1
    assert result_arity(registry._REGISTRY["contract.multi"]) is None
    # Upstream ops: chlo.erf's kernel takes `*args`, yet erf has one operand.
    assert operand_arity(registry.lookup("chlo.erf")) == (1, 1)  # type: ignore[arg-type]
    assert result_arity(registry.lookup("stablehlo.while")) is None  # type: ignore[arg-type]
    assert result_arity(registry.lookup("stablehlo.rng_bit_generator")) == 2  # type: ignore


def _verify(body: str) -> None:
    text = f"func.func @f(%a: tensor<f32>) {{\n{body}\n  func.return\n}}\n"
    verify_module(parse_source(text, "t.mlir"))


@pytest.mark.parametrize(("body", "message"), [
    ('  %0 = "contract.pair"(%a, %a, %a) : (tensor<f32>, tensor<f32>, tensor<f32>) -> '
     'tensor<f32>', "expected 2 operands, but found 3"),
    ('  %0 = "contract.opt"() : () -> tensor<f32>', "expected 1 or more operands, but found 0"),
    ('  %0 = "contract.opt"(%a, %a, %a) : (tensor<f32>, tensor<f32>, tensor<f32>) -> '
     'tensor<f32>', "expected at most 2 operands, but found 3"),
    ('  "contract.pair"(%a, %a) : (tensor<f32>, tensor<f32>) -> ()', "requires one result"),
    ('  %0 = "contract.attr"(%a) : (tensor<f32>) -> tensor<f32>',
     "requires attribute 'needed'"),
])
def test_verifier_uses_declarations(scratch: str, body: str, message: str) -> None:
    def kernel(*xs: np.ndarray) -> np.ndarray:
        return xs[0]

    define_op("contract.pair", operands=("lhs", "rhs"), results=1)(kernel)
    define_op("contract.opt", operands=("lhs", "rhs?"), results=1)(kernel)
    declare_op("contract.attr", operands=("x",), results=1, attributes=("needed", "maybe?"))
    with pytest.raises(Diagnostic, match=message):
        _verify(body)


def test_optional_attribute_is_not_required(scratch: str) -> None:
    declare_op("contract.attr", operands=("x",), results=1, attributes=("needed", "maybe?"))
    _verify('  %0 = "contract.attr"(%a) {needed = 1 : i64} : (tensor<f32>) -> tensor<f32>')
    # Undeclared attributes are discardable, as upstream accepts them.
    _verify('  %0 = "contract.attr"(%a) {needed = 1 : i64, other = 2 : i64} : '
            '(tensor<f32>) -> tensor<f32>')


def test_declared_attributes_are_inherent(scratch: str) -> None:
    """Declared attributes are held as properties (printed `<{...}>` in generic form)."""
    declare_op("contract.attr", operands=("x",), results=1, attributes=("needed", "maybe?"))
    text = ('func.func @f(%a: tensor<f32>) {\n  %0 = "contract.attr"(%a) {needed = 1 : i64, '
            'other = 2 : i64} : (tensor<f32>) -> tensor<f32>\n  func.return\n}\n')
    op = parse_source(text, "t.mlir").functions()[0].regions[0].entry.operations[0]
    assert set(op.properties) == {"needed"}
    assert set(op.attributes) == {"other"}


def test_dialects_use_public_ir_names_only() -> None:
    """Op packages reach the parser and printer through public methods and names only
    (no `p._private(...)`, no `from ..ir.x import _private`)."""
    import ast
    from pathlib import Path

    import shlo_cli

    root = Path(shlo_cli.__file__).parent
    found = []
    for package in ("dialects", "check_dialect", "custom_calls"):
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and (
                        node.module == "ir" or node.module.startswith("ir.")):
                    found += [f"{path.name}: {a.name}" for a in node.names
                              if a.name.startswith("_")]
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id in ("p", "pr", "parser", "printer")
                        and node.attr.startswith("_")):
                    found.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert found == []


def test_stablehlo_contracts_agree_with_vhlo() -> None:
    """StableHLO ops and their current VHLO versions (a frozen copy of the same ODS) declare
    the same operands and result counts."""
    from shlo_cli.dialects.vhlo.ops import latest_spec

    checked = 0
    for name, opdef in registry.all_ops().items():
        if not name.startswith("stablehlo."):
            continue
        spec = latest_spec(name.split(".", 1)[1])
        if spec is None:  # ops VHLO no longer carries (stablehlo.trace)
            continue
        variadic = any(r.startswith("*") for r in spec.results)
        assert opdef.operands == spec.operands, name
        assert opdef.results == ("*" if variadic else len(spec.results)), name
        checked += 1
    assert checked > 100
