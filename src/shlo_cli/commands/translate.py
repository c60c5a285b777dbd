"""`stablehlo-translate`: the drop-in front end upstream's lit tests call.

Three translations: `--interpret` (shared with `shlo interpret`), and the portable-artifact
pair `--serialize` / `--deserialize` (shared with `shlo serialize` / `shlo deserialize`).

The command line is read by hand when it is a plain `--interpret`, `--serialize` or
`--deserialize` one, the spellings upstream's tests use (`_simple_args`): importing click
costs a launch more than the translation of a small file. Anything else (`--help`,
`--version`, the interpreter's data options, an unknown or malformed option) goes to the
click command in `translate_cli`.
"""

from __future__ import annotations

import sys

from .plain_args import read_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Boolean options the plain command lines may carry, by name without dashes: which run_*
# keyword each sets, per translation (None: accepted and ignored, as click's command does).
_FLAGS: dict[str, dict[str, str | None]] = {
    "serialize": {"strip-debuginfo": "strip_debuginfo",
                  "allow-other-dialects": "allow_other_dialects",
                  "split-input-file": "split_input_file",
                  "allow-unregistered-dialect": "allow_unregistered_dialect",
                  "print-stablehlo-version": None, "mlir-print-debuginfo": None},
    "deserialize": {"print-stablehlo-version": "print_stablehlo_version",
                    "mlir-print-debuginfo": "debuginfo", "strip-debuginfo": None,
                    "allow-other-dialects": None, "split-input-file": None,
                    "allow-unregistered-dialect": None},
    "interpret": {"split-input-file": "split_input_file",
                  "allow-unregistered-dialect": "allow_unregistered_dialect",
                  "interpreter-print-dense": "interpreter_print_dense",
                  "verify-diagnostics": "verify_diagnostics"},
}
# mlir-translate's printer and context flags (MlirTranslateMain registers the asm printer's
# options): the form of a deserialized program, accepted and ignored by the other two.
PRINTER_FLAGS = {"mlir-print-op-generic": "generic", "mlir-print-local-scope": "local_scope",
                 "mlir-disable-threading": None}
_FLAGS["deserialize"].update(PRINTER_FLAGS)
for _mode in ("serialize", "interpret"):
    _FLAGS[_mode].update(dict.fromkeys(PRINTER_FLAGS))


# Options taking a string, per translation (`--name=V` or `--name V`): their run_* keyword.
_VALUES: dict[str, dict[str, str]] = {
    "serialize": {"target": "target"},
    "deserialize": {},
    "interpret": {"args": "args", "probe-output-dir": "probe_output_dir"},
}


def _simple_args(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(translation, keyword arguments of its run_* function) for a plain command line:
    `--interpret`, `--serialize` or `--deserialize` once, flags of that translation, its
    string options (`--target=V`, `--args=...`; or `--name V`), `-o FILE`, at most one
    input; None for anything else."""
    modes = [a for a in args if a.lstrip("-") in _FLAGS and a.startswith("-")
             and not a.startswith("---")]
    if len(modes) != 1:
        return None
    mode = modes[0].lstrip("-")
    flags, value_options = _FLAGS[mode], _VALUES[mode]
    plain = read_plain(args, lambda name: name == mode or name in flags, value_options)
    if plain is None:
        return None
    source, output, options, seen = plain
    values: dict[str, Any] = {"input": source, "output": output}
    if mode == "serialize":
        values["target"] = None
    for name in seen:
        keyword = flags.get(name)
        if keyword is not None:
            values[keyword] = True
    for name, text in options.items():
        values[value_options[name]] = text
    return mode, values


def __getattr__(name: str) -> Any:
    """`translate`, the click command (for tests), built on first use."""
    if name == "translate":
        from .translate_cli import translate

        return translate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    simple = _simple_args(sys.argv[1:])
    if simple is None:
        from .translate_cli import translate

        translate(prog_name="stablehlo-translate")
        return
    # Ctrl-C: one line, exit 130, no partial -o file (`entry` reports the KeyboardInterrupt).
    mode, values = simple
    try:
        if mode == "interpret":
            from .interpret import run_interpret

            sys.exit(run_interpret(**values))
        from .portable import run_deserialize, run_serialize

        sys.exit(run_serialize(**values) if mode == "serialize" else run_deserialize(**values))
    except BrokenPipeError:  # as click does: a closed pipe (`| head`) is no traceback
        sys.stderr.close()
        sys.exit(1)
