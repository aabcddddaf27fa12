# Two commands on a fresh machine with Python 3 and make:
#   make lab    install JupyterLab and the exercises (nothing for tests) and open JupyterLab on notebooks/
#               (make lab CULL=600 on a workshop machine: idle kernels are shut down after 600 s)
#   make test   install everything the tests need and run every test (unit, nbval, docs, Binder, real browser, real JupyterHub)
#   make venv   install the package and its CLI into .venv without starting a server (an instructor's hub, workshop builds)
#   make docs   build the documentation into build/docs, warnings as errors
#   make test-fast   the edit loop: everything but the slow (Binder, make lab, JupyterHub) and browser tests
PYTHON   ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
# One stamp per install: `make lab` needs the package (ipywidgets, matplotlib) and its lab extra
# (JupyterLab); `make test` adds the test and docs extras. The test install is a superset, so it also
# stamps the lab install: a `make lab` after `make test` installs nothing.
LAB_STAMP  := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
STAMP_DEPS := pyproject.toml failuremap_edu/_jupyter/page_config.json failuremap_edu/_jupyter/widgets_settings.json
CHROMIUM := /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
# JupyterLab refuses to run as root without --allow-root; root is normal in containers,
# on cloud VMs and on workshop machines, so decide the way SUDO does.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
# No display (a server, a container, an SSH session): don't try to open a browser.
# JupyterLab prints the URL to open, with its token, either way.
NO_BROWSER := $(if $(DISPLAY)$(WAYLAND_DISPLAY)$(filter Darwin,$(shell uname -s)),,--no-browser)
# The folder JupyterLab opens (make lab NOTEBOOKS=DIR), and extra arguments for `jupyter lab`,
# e.g. make lab LAB_ARGS="--port=9999". A --notebook-dir (or root_dir) in LAB_ARGS wins over NOTEBOOKS.
NOTEBOOKS ?= notebooks
LAB_ARGS ?=
ROOT_DIR_ARG := $(if $(findstring --notebook-dir,$(LAB_ARGS))$(findstring root_dir,$(LAB_ARGS)),,--notebook-dir=$(NOTEBOOKS))
# On a workshop machine, shut down kernels idle for CULL seconds (make lab CULL=600), checked every
# CULL_INTERVAL seconds: restored tabs otherwise keep idle kernels running on a few cores. Off by default;
# a setting of the same name in LAB_ARGS comes later, so it wins.
CULL ?=
CULL_INTERVAL ?= 60
CULL_ARGS := $(if $(CULL),--MappingKernelManager.cull_idle_timeout=$(CULL) --MappingKernelManager.cull_interval=$(CULL_INTERVAL),)
# Pyodide (the Python JupyterLite runs) from npm, into this repository (package.json pins the
# version jupyterlite-pyodide-kernel was made for), and pure-Python wheels for the test suite
# that runs inside it under node (tests/test_pyodide.py). The same `npm ci` installs JupyterHub's
# proxy (configurable-http-proxy) for the hub test and benchmark, never globally.
PYODIDE        := node_modules/pyodide/pyodide.mjs
PYODIDE_WHEELS := $(VENV)/pyodide-wheels
PYODIDE_PIP    := --only-binary=:all: --python-version 3.14 --implementation py --abi none --platform any

.PHONY: lab lite test test-fast bench docs notebooks venv system-deps pyodide clean

venv: $(LAB_STAMP)

$(VENV)/bin/python:
	@echo "==> make: creating a virtual environment in $(VENV)"
	@$(PYTHON) -m venv $(VENV)

$(LAB_STAMP): $(STAMP_DEPS) | $(VENV)/bin/python
	@echo "==> make: installing failuremap-edu with JupyterLab, ipywidgets and matplotlib into $(VENV) (about a minute)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[lab]'
	@touch $@

$(TEST_STAMP): $(STAMP_DEPS) | $(VENV)/bin/python
	@echo "==> make: installing failuremap-edu with its test and docs extras into $(VENV) (several minutes)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[lab,test,docs]'
	@touch $@ $(LAB_STAMP)

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

$(PYODIDE_WHEELS)/.downloaded: $(TEST_STAMP) tests/pyodide/requirements.txt
	$(BIN)/python -m pip download --quiet $(PYODIDE_PIP) -r tests/pyodide/requirements.txt -d $(PYODIDE_WHEELS)
	touch $@

# A JupyterLite site with every packaged record in build/lite (docs/how-to/jupyterlite.md).
lite: $(TEST_STAMP) $(PYODIDE)
	$(BIN)/failuremap-edu lite -o build/lite

# The venv's bin first on PATH: a terminal opened in JupyterLab then has failuremap-edu, as the downloads' "check again" lines say.
lab: $(LAB_STAMP)
	@echo "==> make: starting JupyterLab on $(if $(ROOT_DIR_ARG),$(NOTEBOOKS)/,the folder in LAB_ARGS); open the URL with a token it prints below"
	@PATH="$(abspath $(BIN)):$$PATH" $(BIN)/jupyter lab $(ROOT_DIR_ARG) $(ALLOW_ROOT) $(NO_BROWSER) $(CULL_ARGS) $(LAB_ARGS)

test: $(TEST_STAMP) system-deps pyodide
	FAILUREMAP_PROGRESS=$(CURDIR)/$(VENV)/test-progress.jsonl $(BIN)/python -m pytest

# No Chromium needed: the browser tests are the ones left out.
test-fast: $(TEST_STAMP)
	FAILUREMAP_PROGRESS=$(CURDIR)/$(VENV)/test-progress.jsonl $(BIN)/python -m pytest -m "not slow and not browser"

notebooks: $(LAB_STAMP)
	$(BIN)/failuremap-edu notebook --all-packaged -o notebooks --references references

bench: $(TEST_STAMP) $(PYODIDE)
	$(BIN)/python benchmarks/run_all.py

# Sphinx with MyST; -W: a warning (a broken internal link, a missing reference) fails the build.
# No external link check: the docs build offline.
DOCS_SRC ?= docs
DOCS_OUT ?= build/docs
docs: $(TEST_STAMP)
	$(BIN)/python -m sphinx -W --keep-going -b html -q $(DOCS_SRC) $(DOCS_OUT)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis artifacts node_modules
