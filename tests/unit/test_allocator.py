"""The interpreter sets glibc's allocator thresholds once per process (interpreter/allocator.py),
and a C library without `mallopt` is left alone."""

from __future__ import annotations

from typing import Any

import pytest

from shlo_cli.interpreter import allocator


class _Function:
    """A stand-in for a ctypes function (takes argtypes/restype, records calls)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, parameter: int, value: int) -> int:
        self.calls.append((parameter, value))
        return 1


class _Library:
    def __init__(self) -> None:
        self.mallopt = _Function()


def test_thresholds_are_set_once(monkeypatch: pytest.MonkeyPatch) -> None:
    library: Any = _Library()
    monkeypatch.setattr(allocator, "_done", False)
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda name: library)
    allocator.tune_allocator()
    allocator.tune_allocator()
    assert library.mallopt.calls == [(-3, 1 << 26), (-1, 1 << 27)]


def test_a_library_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator, "_done", False)
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda name: object())
    allocator.tune_allocator()  # no AttributeError
    assert allocator._done


def test_an_interpreter_tunes_before_running() -> None:
    from shlo_cli.interpreter.engine import Interpreter
    from shlo_cli.ir.parser import parse_source

    Interpreter(parse_source("func.func @main() {\n  func.return\n}\n"))
    assert allocator._done
