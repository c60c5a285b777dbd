"""Module-to-module passes selected by `stablehlo-opt` flags. Each pass module registers
itself in PASSES with the flag name upstream uses.

PASSES loads lazily: a tool launch that runs no pass must not pay for importing every pass
(with the VHLO dialect and numpy). Which module declares which pass is read from the pass
modules' source (the literal name in `@register_pass("name", ...)`, one regex over ~40 small
files, about a millisecond), so the declaration stays in one place, beside the pass, and no
cache can go stale; a module is imported when one of its passes is first looked up. Anything
asking for every pass (`items()`, `values()`, a name the scan did not find) imports them all.

A pass may declare options (`--vhlo-to-version='target=1.0.0'`): `register_pass(...,
options=(PassOption(...), ...))`; its function then receives them as keyword arguments,
each parsed from text by the option's ``parse`` (or set by its bare name for a ``flag``).
Option text is MLIR's: space-separated `name=value` items, values optionally quoted.
"""

from __future__ import annotations

from collections.abc import MutableMapping

from ..ir import regex_programs
from ..ir.core import Module
from ..ir.diagnostics import Diagnostic, ShloError
from ..ir.record import Record, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    PassFn = Callable[..., None]


class PassOptionError(ValueError):
    """Option text a pass does not accept; the message is MLIR's wording."""


class PassOption(Record):
    """One named pass option: ``parse`` turns its text into the value the pass gets (raising
    ValueError with the message to show); a ``flag`` may be given without `=value`."""

    __slots__ = ("name", "help", "default", "parse", "flag")
    name: str
    help: str
    default: Any
    parse: Callable[[str], Any]
    flag: bool

    def __init__(self, name: str, help: str, default: Any = None,
                 parse: Callable[[str], Any] = str, flag: bool = False) -> None:
        set_field(self, "name", name)
        set_field(self, "help", help)
        set_field(self, "default", default)
        set_field(self, "parse", parse)
        set_field(self, "flag", flag)

    @property
    def keyword(self) -> str:
        """The Python keyword the pass function takes (a trailing `_` after a keyword such
        as `except`)."""
        import keyword

        name = self.name.replace("-", "_")
        return f"{name}_" if keyword.iskeyword(name) else name


class Pass(Record):
    __slots__ = ("name", "run", "help", "options")
    name: str
    run: Callable[..., None]
    help: str
    options: tuple[PassOption, ...]

    def __init__(self, name: str, run: Callable[..., None], help: str,
                 options: tuple[PassOption, ...] = ()) -> None:
        set_field(self, "name", name)
        set_field(self, "run", run)
        set_field(self, "help", help)
        set_field(self, "options", options)

    def parse_options(self, text: str) -> dict[str, Any]:
        """Keyword arguments for ``run`` from option text (`target=1.0.0 flag`); every
        option not named gets its default."""
        values = {opt.keyword: opt.default for opt in self.options}
        by_name = {opt.name: opt for opt in self.options}
        import shlex  # only for option text: most launches run no pass with options

        try:
            items = shlex.split(text)
        except ValueError as e:
            raise PassOptionError(f"<Pass-Options-Parser>: {e}") from None
        for item in items:
            name, eq, raw = item.partition("=")
            opt = by_name.get(name)
            if opt is None:
                raise PassOptionError(f"<Pass-Options-Parser>: no such option {name}")
            if not eq:
                if not opt.flag:
                    raise PassOptionError(
                        f"<Pass-Options-Parser>: option '{name}' requires a value")
                raw = "true"
            try:
                values[opt.keyword] = _parse_flag(raw) if opt.flag else opt.parse(raw)
            except ValueError as e:
                raise PassOptionError(f"<Pass-Options-Parser>: {e}") from None
        return values


def parse_list(text: str) -> tuple[str, ...]:
    """A ListOption's value: comma-separated items (MLIR's `a,b,c`), blanks trimmed."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _parse_flag(text: str) -> bool:
    if text in ("true", "1", ""):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError(f"'{text}' is invalid value for boolean argument! Try 0 or 1")


_DECLARATION = regex_programs.compile(r"""@register_pass\(\s*["']([^"']+)["']""")


class PassRegistry(MutableMapping[str, "Pass"]):
    """Pass name -> Pass, importing a pass's module on first lookup of one of its names.
    Names and order (module file order, then declaration order) come from a source scan."""

    def __init__(self) -> None:
        self._passes: dict[str, Pass] = {}
        self._index: dict[str, str] | None = None  # pass name -> module, once scanned
        self._all_loaded = False

    def index(self) -> dict[str, str]:
        """Pass name -> the module declaring it, from the pass modules' source."""
        if self._index is None:
            import os

            index: dict[str, str] = {}
            root = os.path.dirname(__file__)
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if os.path.exists(
                    os.path.join(folder, d, "__init__.py")))  # subpackages (fold/, ...)
                package = os.path.relpath(folder, root).replace(os.sep, ".")
                prefix = __name__ if package == "." else f"{__name__}.{package}"
                for entry in sorted(files):
                    stem, ext = os.path.splitext(entry)
                    if ext != ".py" or (stem == "__init__" and package == "."):
                        continue
                    with open(os.path.join(folder, entry), encoding="utf-8") as f:
                        text = f.read()
                    if "register_pass" not in text:
                        continue
                    module = prefix if stem == "__init__" else f"{prefix}.{stem}"
                    for name in _DECLARATION.findall(text):
                        index.setdefault(name, module)
            self._index = index
        return self._index

    def load(self, name: str) -> Pass | None:
        """The pass `name`, importing its module if needed (every pass module when the scan
        did not see the name); None when no module registers it."""
        if name not in self._passes:
            module = self.index().get(name)
            if module is not None:
                import importlib

                importlib.import_module(module)
            if name not in self._passes:
                self.load_all()
        return self._passes.get(name)

    def load_all(self) -> None:
        """Import every pass module (what `--help` and listings need)."""
        if self._all_loaded:
            return
        self._all_loaded = True
        import importlib
        import pkgutil

        for info in pkgutil.iter_modules(__path__, __name__ + "."):
            importlib.import_module(info.name)

    def names(self) -> list[str]:
        """Every pass name without importing a pass module (scan order, then others)."""
        return [*self.index(), *(n for n in self._passes if n not in self.index())]

    def loaded(self, name: str) -> Pass | None:
        """The pass if its module is already imported (no import)."""
        return self._passes.get(name)

    def __getitem__(self, name: str) -> Pass:
        pass_ = self.load(name)
        if pass_ is None:
            raise KeyError(name)
        return pass_

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self._passes or name in self.index()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __setitem__(self, name: str, pass_: Pass) -> None:
        self._passes[name] = pass_

    def __delitem__(self, name: str) -> None:
        del self._passes[name]


PASSES = PassRegistry()




def register_pass(name: str, help: str,
                  options: tuple[PassOption, ...] = ()) -> Callable[[PassFn], PassFn]:
    def wrap(fn: PassFn) -> PassFn:
        PASSES[name] = Pass(name, fn, help, options)
        return fn

    return wrap


class DeferredErrors(Exception):
    """Raised by a pass that reported errors yet ran to its end (MLIR's emitError without
    signalPassFailure): the module is still verified, and every error is reported, the
    verifier's last, as one diagnostic with the others attached."""

    def __init__(self, errors: list[Diagnostic]) -> None:
        super().__init__(errors[0].message if errors else "")
        self.errors = errors


PassRequest = str | tuple[str, str]
"""A pass to run: its name, or (name, option text)."""


def run_passes(module: Module, requests: list[PassRequest],
               verify: Callable[[Module], None] | None = None) -> None:
    """Run passes in order; like mlir-opt, verify the module after each pass. Options are
    checked before any pass runs (PassOptionError)."""
    planned = []
    for request in requests:
        name, text = (request, "") if isinstance(request, str) else request
        pass_ = PASSES[name]
        planned.append((pass_, pass_.parse_options(text) if pass_.options else {}))
    for pass_, options in planned:
        STATISTICS.setdefault(pass_.name, {})
        try:
            pass_.run(module, **options)
        except DeferredErrors as e:
            errors = list(e.errors)
            if verify is not None:
                try:
                    verify(module)
                except Diagnostic as d:
                    errors.append(d)
            first = errors[0]
            first.notes.extend(errors[1:])
            raise first from None
        except (Diagnostic, ShloError, KeyboardInterrupt, MemoryError):
            raise
        except Exception as e:  # noqa: BLE001 - a pass bug must not become a traceback
            loc = module.op.location
            raise Diagnostic(f"internal error in pass '{pass_.name}' "
                             f"({type(e).__name__}: {e}); please report it",
                             line=loc.line or 1, col=loc.col or 1) from e
        if verify is not None:
            verify(module)


# `--mlir-pass-statistics`: per pass that ran, its counters (name -> [value, description]),
# in the order the passes first ran.
STATISTICS: dict[str, dict[str, list[Any]]] = {}


def statistic(pass_name: str, name: str, description: str, amount: int = 1) -> None:
    """Add `amount` to a pass's counter (MLIR's Pass::Statistic)."""
    counter = STATISTICS.setdefault(pass_name, {}).setdefault(name, [0, description])
    counter[0] += amount


def statistics_report() -> str:
    """The counters in mlir-opt's `--mlir-pass-statistics` layout (passes by flag name)."""
    rule = "===" + "-" * 73 + "==="
    lines = [rule, " " * 25 + "... Pass statistics report ...", rule,
             "'builtin.module' Pipeline"]
    for pass_name, counters in STATISTICS.items():
        lines.append(f"  {pass_name}")
        for name, (value, description) in counters.items():
            lines.append(f"    (S) {value} {name} - {description}")
    return "\n".join(lines) + "\n"


_EMITTED: list[Diagnostic] = []


def emit(diag: Diagnostic) -> None:
    """Report a diagnostic without failing the pass, as an MLIR pattern that emits an error
    (or warning) and then just does not apply: the tool prints it, or `-verify-diagnostics`
    matches it, and the pass goes on."""
    _EMITTED.append(diag)


def take_emitted() -> list[Diagnostic]:
    """The diagnostics emitted since the last call, oldest first."""
    taken = list(_EMITTED)
    _EMITTED.clear()
    return taken
