"""`interpreter.print`: upstream's `%name = <tensor>` text, whole even from many threads."""

from __future__ import annotations

import threading
import time

import numpy as np

from shlo_cli.dialects.interpreter_ops import print_
from shlo_cli.interpreter.engine import Interpreter
from shlo_cli.ir.parser import parse_source

PROGRAM = """
func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
  %sum = stablehlo.add %a, %c : tensor<2xi32>
  interpreter.print %sum : tensor<2xi32>
  interpreter.print %c : tensor<2xi32>
  return %sum : tensor<2xi32>
}
"""


class SlowStream:
    """Writes one character at a time, yielding in between, to expose interleaving."""

    def __init__(self) -> None:
        self.chars: list[str] = []

    def write(self, text: str) -> None:
        for ch in text:
            self.chars.append(ch)
            time.sleep(0)

    def flush(self) -> None:
        pass


def test_print_uses_the_module_printer_names() -> None:
    module = parse_source(PROGRAM)
    stream = SlowStream()
    interpreter = Interpreter(module, stdout=stream)
    result = interpreter.call(module.functions()[0], [np.array([1, 2], np.int32)])
    assert result[0].tolist() == [6, 8]
    assert "".join(stream.chars) == ("%0 = tensor<2xi32> {\n  [6, 8]\n}\n"
                                     "%c = tensor<2xi32> {\n  [5, 6]\n}\n")


def test_concurrent_prints_never_interleave() -> None:
    module = parse_source(PROGRAM)
    stream = SlowStream()
    interpreter = Interpreter(module, stdout=stream)
    print_op = next(op for op in module.functions()[0].walk() if op.name == "interpreter.print")
    values = [np.full((2,), i, np.int32) for i in range(8)]

    def work(value: np.ndarray) -> None:
        for _ in range(5):
            print_(value, op=print_op, ctx=interpreter.ctx)

    threads = [threading.Thread(target=work, args=(v,)) for v in values]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    text = "".join(stream.chars)
    blocks = text.split("%0 = ")[1:]
    assert len(blocks) == 40
    for block in blocks:
        i = block[len("tensor<2xi32> {\n  ["):].split(",")[0]
        assert block == f"tensor<2xi32> {{\n  [{i}, {i}]\n}}\n"
