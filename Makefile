# Two commands on a fresh machine with Python 3 and make:
#   make lab    set everything up and open JupyterLab on notebooks/
#   make test   set everything up and run every test (unit, nbval, Binder, real browser)
PYTHON   ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: lab test bench notebooks venv system-deps clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; never `playwright install`).
system-deps:
	@test -x $(CHROMIUM) || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium fonts-dejavu-core; }

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks

test: $(STAMP) system-deps
	FAILUREMAP_PROGRESS=$(CURDIR)/$(VENV)/test-progress.jsonl $(BIN)/python -m pytest

notebooks: $(STAMP)
	$(BIN)/failuremap-edu notebook --all-packaged -o notebooks

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis artifacts
