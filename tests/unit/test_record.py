"""`ir.record.Record`, the base of the IR's immutable value classes (types, attributes):
equality and hashing by the key fields only, frozen fields, and copies that stay equal."""

from __future__ import annotations

import copy
import pickle

import pytest

from shlo_cli.formats.bytecode.tables import UndecodedAttr
from shlo_cli.ir.attributes import DenseResourceAttr, DialectAttr, IntegerAttr, OpaqueAttr
from shlo_cli.ir.types import F32, FloatType, IndexType, IntegerType, TensorType, TokenType


def test_equal_by_class_and_key_fields() -> None:
    assert IntegerType(32) == IntegerType(32, "")
    assert IntegerType(32) != IntegerType(32, "u")
    assert hash(TensorType((2,), F32)) == hash(TensorType((2,), FloatType("f32")))
    assert FloatType("f32") != OpaqueType_like("f32")
    assert IndexType() == IndexType() and IndexType() != TokenType()
    assert len({IntegerAttr(1), IntegerAttr(1), IntegerAttr(1, IntegerType(32))}) == 2


def OpaqueType_like(text: str) -> object:
    from shlo_cli.ir.types import OpaqueType

    return OpaqueType(text)


def test_caches_and_uncompared_fields_are_not_the_key() -> None:
    a, b = TensorType((2,), F32), TensorType((2,), F32)
    str(a)  # fills a's printed-text cache only
    assert a == b and hash(a) == hash(b)
    assert TensorType.key_fields == ("shape", "element", "encoding")
    assert DialectAttr("d", "n", "x", (("k", 1),)) == DialectAttr("d", "n", "x")
    assert DialectAttr.key_fields == ("dialect", "name", "body")
    assert DenseResourceAttr("h", F32, {"h": "0x"}) == DenseResourceAttr("h", F32)
    # a subclass keys its base's fields first, then its own
    assert UndecodedAttr.key_fields == ("text", "dialect")
    assert UndecodedAttr("#x<y>", "x") != OpaqueAttr("#x<y>")


def test_fields_are_frozen() -> None:
    t = IntegerType(8)
    with pytest.raises(AttributeError):
        t.width = 16  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del t.width
    with pytest.raises(AttributeError):
        t.other = 1  # type: ignore[attr-defined]


def test_repr_and_copies() -> None:
    assert repr(IntegerType(8, "u")) == "IntegerType(width=8, signedness='u')"
    t = TensorType((2, 3), IntegerType(8))
    str(t)
    for again in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert again == t and str(again) == "tensor<2x3xi8>"
    u = UndecodedAttr("#sdy<z>", "sdy")
    assert pickle.loads(pickle.dumps(u)) == u
