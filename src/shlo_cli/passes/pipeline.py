"""`--pass-pipeline='builtin.module(a, b{opt=v}, func.func(c))'`: MLIR's textual pipeline.

Every shlo pass works on the whole module, so op anchors (`builtin.module(...)`,
`func.func(...)`) only group passes here: the pipeline flattens to its passes in order."""

from __future__ import annotations

from . import PASSES, PassOptionError, PassRequest


def parse_pipeline(text: str) -> list[PassRequest]:
    """The passes of a textual pipeline, in order; PassOptionError names what is wrong."""
    parser = _PipelineParser(text)
    requests = parser.elements()
    if parser.pos != len(text):
        raise parser.error("unexpected character")
    return requests


class _PipelineParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> PassOptionError:
        return PassOptionError(f"MLIR Textual PassPipeline Parser:1:{self.pos + 1}: error: "
                               f"{what}\n{self.text}\n{' ' * self.pos}^")

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def elements(self) -> list[PassRequest]:
        requests: list[PassRequest] = []
        while True:
            self._skip_space()
            requests.extend(self.element())
            self._skip_space()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            return requests

    def element(self) -> list[PassRequest]:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in "(){},":
            self.pos += 1
        name = self.text[start:self.pos].strip()
        if not name:
            raise self.error("expected pass or op name")
        if self.pos < len(self.text) and self.text[self.pos] == "(":
            self.pos += 1
            self._skip_space()
            nested: list[PassRequest] = []
            if self.pos < len(self.text) and self.text[self.pos] != ")":
                nested = self.elements()
            if self.pos >= len(self.text) or self.text[self.pos] != ")":
                raise self.error("expected ')' to end the nested pipeline")
            self.pos += 1
            return nested
        options = ""
        if self.pos < len(self.text) and self.text[self.pos] == "{":
            options = self.braced()
        if name not in PASSES:
            self.pos = start
            raise self.error(f"'{name}' does not refer to a registered pass or pass pipeline")
        return [(name, options) if PASSES[name].options or options else name]

    def braced(self) -> str:
        """The text between `{` and its matching `}` (quotes and nested braces allowed)."""
        depth, start, quote = 0, self.pos + 1, ""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start:self.pos - 1]
            self.pos += 1
        raise self.error("expected '}' to end the pass options")
