# shlo developer commands. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFORMANCE ?= $(abspath ../shared/conformance)
STAMP := $(VENV)/.installed

.PHONY: install run test lint conformance bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,linalg]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/shlo interpret examples/softmax.mlir

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pytest -q tests/unit
	$(BIN)/lit -q tests/lit

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

# CONFORMANCE_ARGS: e.g. `--update-xfail`, `--suite interpret`, `--filter add`.
conformance: $(STAMP)
	$(BIN)/python -m shlo_cli.conformance $(CONFORMANCE) $(CONFORMANCE_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(CONFORMANCE)

clean:
	rm -rf $(VENV) build dist src/*.egg-info
