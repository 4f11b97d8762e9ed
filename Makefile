# Two entry points for a fresh machine with only python3 and make:
#   make demo  - create .venv, install lamina, train the demo model
#   make test  - create .venv with dev extras, run lint, import contracts and tests
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Installed before the dev extras so that their `torch` range is already met by this
# build: pip's configured wheel folder holds a CPU-only one (no CUDA downloads).
TORCH_VERSION ?= 2.13.0

.PHONY: demo test lint contracts pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "torch==$(TORCH_VERSION)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/python examples/demo.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests examples bench
	$(BIN)/ruff format --check src tests examples bench

contracts: $(VENV)/.installed-dev
	$(BIN)/lint-imports

pytest: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

test: lint contracts pytest

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/fit_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache src/*.egg-info
