# shlo developer commands. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFORMANCE ?= $(abspath ../shared/conformance)
STAMP := $(VENV)/.installed

.PHONY: install run test lint conformance bench clean bytecode interop fuzz opt-sweep

# Python reads cached bytecode even where PYTHONDONTWRITEBYTECODE is set, so compiling the
# sources once (incremental: only changed files) saves every tool launch recompiling them;
# the regex programs are saved beside them likewise (`shlo_cli.regex_programs_build`).
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q src
	@$(BIN)/python -m shlo_cli.regex_programs_build >/dev/null

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,linalg,interop,bench]'
	touch $(STAMP)

install: bytecode

run: bytecode
	$(BIN)/shlo interpret examples/softmax.mlir

test: bytecode
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest -q tests/unit
	$(BIN)/lit -q tests/lit

# The jaxlib interop tests alone (jaxlib comes with `make install`; measured ~7 s here from a
# local wheel, ~600 MB from PyPI), printing per-target counts.
interop: bytecode
	$(BIN)/pytest -q tests/unit/test_jaxlib_interop.py
	$(BIN)/python tests/unit/test_jaxlib_interop.py

# mypy reads its settings from pyproject.toml: ir/, formats/ and api.py strict, the rest default.
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# STABLEHLO=<openxla/stablehlo checkout>: run its stablehlo/tests and stablehlo/testdata instead.
# CONFORMANCE_ARGS: e.g. `--update-xfail`, `--suite interpret`, `--filter add`.
conformance: bytecode
	$(BIN)/python tests/conformance/conformance.py $(CONFORMANCE) \
		$(if $(STABLEHLO),--stablehlo $(STABLEHLO)) $(CONFORMANCE_ARGS)

# Mutation fuzzing of the conformance files and generated programs (compared with XLA CPU when
# jax is installed: `pip install -e '.[xla]'`). FUZZ_SEED picks the run.
FUZZ_SEED ?= 1
fuzz: bytecode
	$(BIN)/python tests/fuzz/mutate.py --cases 10000 --seed $(FUZZ_SEED) $(CONFORMANCE)
	$(BIN)/python tests/fuzz/generate.py --programs 2000 --seed $(FUZZ_SEED)
	$(BIN)/python tests/fuzz/loops.py --programs 2000 --seed $(FUZZ_SEED)

# Issue 12: --chlo-legalize-to-stablehlo --canonicalize --cse --stablehlo-aggressive-simplification
# before interpreting must keep every testdata program passing (OPT_SWEEP_ARGS: --folder, --filter).
opt-sweep: bytecode
	$(BIN)/python benchmarks/opt_sweep.py $(CONFORMANCE) $(OPT_SWEEP_ARGS)

bench: bytecode
	$(BIN)/python benchmarks/run.py $(CONFORMANCE)

clean:
	rm -rf $(VENV) build dist src/*.egg-info
