"""Running a program with the loop generator on or off (the generated-loop tests)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shlo_cli.interpreter import engine
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source


def run_loops(text: str, args: list[Any], compiled: bool,
              monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[str]]:
    """main's results on its second call (plans kept from the first), with `while` loops
    compiled to Python (the generated sources collected) or, when not `compiled`, run by
    the general evaluator."""
    sources: list[str] = []
    with monkeypatch.context() as m:
        if compiled:
            build = engine.compile_loop

            def spy(*a: Any, **k: Any) -> Any:
                loop = build(*a, **k)
                sources.append(loop.source)
                return loop
            m.setattr(engine, "compile_loop", spy)
        else:
            m.setattr(engine, "_compilable_loop", lambda op: False)
        interpreter = Interpreter(parse_source(text))
        main = interpreter.lookup_function("main")
        with np.errstate(all="ignore"):
            out = [interpreter.call(main, list(args)) for _ in range(2)][-1]
    return out, sources


def run_with_sources(text: str, args: list[Any],
                     m: pytest.MonkeyPatch) -> tuple[list[Any], str]:
    """main's results on its first call, and the source of every plan and loop it compiled
    (joined), spying through `m`, an active monkeypatch context."""
    from shlo_cli.interpreter import codegen

    sources: list[str] = []
    original = codegen.Source.compile

    def spy(self: codegen.Source, *a: Any, **k: Any) -> Any:
        sources.append("\n".join(self.src))
        return original(self, *a, **k)
    m.setattr(codegen.Source, "compile", spy)
    interpreter = Interpreter(parse_source(text))
    out = interpreter.call(interpreter.lookup_function("main"), list(args))
    return list(out), "\n".join(sources)
