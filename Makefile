# Two commands on a fresh machine with Python 3 and make:
#   make lab    set everything up and open JupyterLab on notebooks/
#   make test   set everything up and run every test (unit, nbval, Binder, real browser, real JupyterHub)
#   make test-fast   the edit loop: everything but the slow (Binder, make lab, JupyterHub) and browser tests
PYTHON   ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
STAMP    := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
# JupyterLab refuses to run as root without --allow-root; root is normal in containers,
# on cloud VMs and on workshop machines, so decide the way SUDO does.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
# No display (a server, a container, an SSH session): don't try to open a browser.
# JupyterLab prints the URL to open, with its token, either way.
NO_BROWSER := $(if $(DISPLAY)$(WAYLAND_DISPLAY)$(filter Darwin,$(shell uname -s)),,--no-browser)
# Extra arguments for `jupyter lab`, e.g. make lab LAB_ARGS="--port=9999".
LAB_ARGS ?=
# Pyodide (the Python JupyterLite runs) from npm, into this repository (package.json pins the
# version jupyterlite-pyodide-kernel was made for), and pure-Python wheels for the test suite
# that runs inside it under node (tests/test_pyodide.py). The same `npm ci` installs JupyterHub's
# proxy (configurable-http-proxy) for the hub test and benchmark, never globally.
PYODIDE        := node_modules/pyodide/pyodide.mjs
PYODIDE_WHEELS := $(VENV)/pyodide-wheels
PYODIDE_PIP    := --only-binary=:all: --python-version 3.14 --implementation py --abi none --platform any

.PHONY: lab lite test test-fast bench notebooks venv system-deps pyodide clean

venv: $(STAMP)

$(STAMP): pyproject.toml failuremap_edu/_jupyter/page_config.json failuremap_edu/_jupyter/widgets_settings.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; never `playwright install`);
# git and npm for the JupyterHub test (nbgitpuller clones with git; npm installs the proxy);
# bubblewrap for `--sandbox` (its tests skip without it, except in CI, where they fail: .ci/run sets CI).
system-deps:
	@test -x $(CHROMIUM) || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium fonts-dejavu-core; }
	@command -v bwrap >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y bubblewrap; }
	@command -v git >/dev/null && command -v npm >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y git nodejs npm; }

pyodide: $(PYODIDE) $(PYODIDE_WHEELS)/.downloaded

$(PYODIDE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

$(PYODIDE_WHEELS)/.downloaded: $(STAMP) tests/pyodide/requirements.txt
	$(BIN)/python -m pip download --quiet $(PYODIDE_PIP) -r tests/pyodide/requirements.txt -d $(PYODIDE_WHEELS)
	touch $@

# A JupyterLite site with every packaged record in build/lite (README: "Workshops without a server").
lite: $(STAMP) $(PYODIDE)
	$(BIN)/failuremap-edu lite -o build/lite

# The venv's bin first on PATH: a terminal opened in JupyterLab then has failuremap-edu, as the downloads' "check again" lines say.
lab: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/jupyter lab --notebook-dir=notebooks $(ALLOW_ROOT) $(NO_BROWSER) $(LAB_ARGS)

test: $(STAMP) system-deps pyodide
	FAILUREMAP_PROGRESS=$(CURDIR)/$(VENV)/test-progress.jsonl $(BIN)/python -m pytest

# No Chromium needed: the browser tests are the ones left out.
test-fast: $(STAMP)
	FAILUREMAP_PROGRESS=$(CURDIR)/$(VENV)/test-progress.jsonl $(BIN)/python -m pytest -m "not slow and not browser"

notebooks: $(STAMP)
	$(BIN)/failuremap-edu notebook --all-packaged -o notebooks --references references

bench: $(STAMP) $(PYODIDE)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis artifacts node_modules
