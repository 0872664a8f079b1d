# Every target works from a fresh clone: the venv, the database and the model are made on demand.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
MODEL := var/model.skops
PACKAGES := game_rules moderation lexicons models api bansha

.PHONY: run test lint bench screenshots venv venv-train venv-dev model db browser-deps axe-deps nginx-deps clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps re-run an install whenever pyproject.toml changes; the compile re-runs whenever setup.py
# or a game_rules source does too: setup.py compiles the game core's hot modules with mypyc, and
# an editable install imports the compiled copy, which must never lag behind its source.
GAME_SOURCES := $(shell find game_rules -name '*.py' 2>/dev/null)

# The build requirements (setuptools, mypy for mypyc, the YAML stubs) first: they are all the
# compile needs, since the game core imports nothing else from outside the standard library.
# --no-compile: no bytecode for every file of every dependency (SciPy's and matplotlib's test
# suites included); Python writes it for the modules that are imported, when they are.
$(VENV)/.installed-build: pyproject.toml | $(BIN)/python
	$(BIN)/python deploy/requirements.py build > $(VENV)/requirements-build.txt
	$(BIN)/pip install --quiet --no-compile -r $(VENV)/requirements-build.txt
	touch $@

# The package's dependencies, beside the compile (see run): the compile needs none of them.
$(VENV)/.installed-deps: $(VENV)/.installed-build
	@echo "make: installing the dependencies ..."
	$(BIN)/python deploy/requirements.py run > $(VENV)/requirements.txt
	$(BIN)/pip install --quiet --no-compile -r $(VENV)/requirements.txt
	touch $@

# The package itself without build isolation and without dependencies: mypyc compiles once, in
# this venv (no throwaway build environment, no second compile for the extras), with a line every
# 10 s while it runs.
$(VENV)/.compiled: $(VENV)/.installed-build setup.py $(GAME_SOURCES)
	@echo "make: compiling the game core with mypyc (about a minute on 2 idle cores) ..."
	@$(BIN)/pip install --quiet --no-build-isolation --no-deps -e . & pid=$$!; s=0; \
	while kill -0 $$pid 2>/dev/null; do sleep 10; s=$$((s + 10)); \
		kill -0 $$pid 2>/dev/null && echo "make: still compiling ($$s s)"; done; wait $$pid
	touch $@

# The package, compiled, with its dependencies: what the service and `bansha db` need.
$(VENV)/.installed: $(VENV)/.compiled $(VENV)/.installed-deps
	touch $@

# The service needs only `pip install .`; training the model adds the `train` extra (progress
# bars, the precision-recall plot), so `make run` on a fresh clone still trains; `make test` has
# both. Each extra goes on top of the same dependencies: nothing is compiled twice, and the train
# extra does not wait for the compile (training never imports the game core).
$(VENV)/.installed-train: $(VENV)/.installed-deps
	$(BIN)/python deploy/requirements.py train > $(VENV)/requirements-train.txt
	$(BIN)/pip install --quiet --no-compile -r $(VENV)/requirements-train.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed $(VENV)/.installed-train
	$(BIN)/python deploy/requirements.py dev > $(VENV)/requirements-dev.txt
	$(BIN)/pip install --quiet -r $(VENV)/requirements-dev.txt
	touch $@

venv: $(VENV)/.installed
venv-train: $(VENV)/.installed-train
venv-dev: $(VENV)/.installed-dev

# The model's features include lexicon hits, so any lexicon or feature-code edit retrains it.
# --no-blind: the blind sets are scored on purpose (bansha train alone, docs/classifier.md), not on
# every build, which keeps make run quick and the spent sets out of every developer's report.
MODEL_INPUTS := $(wildcard corpus/*.jsonl) $(shell find lexicons -type f \( -name '*.tsv' -o -name '*.txt' -o -name '*.yaml' \) 2>/dev/null) $(wildcard moderation/*.py)

# `python -m bansha` from the source tree, not the `bansha` script: the model does not wait
# for the compile, which installs that script (see run).
$(MODEL): $(VENV)/.installed-train $(MODEL_INPUTS)
	@echo "make: training the screening model from corpus/ (progress below) ..."
	$(BIN)/python -m bansha train --no-blind --out $(MODEL)

model: $(MODEL)

db: $(VENV)/.installed
	$(BIN)/bansha db upgrade

# The compile and the model do not need each other, so a fresh clone makes them side by side
# (a make of its own with two jobs, whatever -j run was given): the dependencies install beside
# mypyc's type check and code generation, which use one core, and training follows beside the C
# compiler. One after the other they took 134 s to the first answer on 2 quiet cores; side by side
# training is the longest path: 109 s to the first answer at load 1.0-2.3 with the corpus of 24,703
# posts (92 s with 15,570; bench/make_run.json).
run:
	@$(MAKE) --no-print-directory -j2 $(VENV)/.installed $(MODEL)
	@$(MAKE) --no-print-directory db
	$(BIN)/bansha serve --host $(HOST) --port $(PORT)

# Chromium and CJK fonts for the console's browser tests; best effort, the tests skip with a reason without them.
browser-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi 'noto.*cjk'; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null) \
				|| echo "browser-deps: apt-get failed; browser tests will be skipped"; \
		else echo "browser-deps: not root or no apt-get; browser tests will be skipped"; fi; \
	fi

# axe-core (npm registry, pinned in tests/console/package.json) for the browser tests' accessibility
# checks; injected from var/axe, never from a CDN. Best effort: the axe checks skip without it.
axe-deps:
	@if [ ! -f var/axe/node_modules/axe-core/axe.min.js ]; then \
		if command -v npm >/dev/null 2>&1; then \
			mkdir -p var/axe && cp tests/console/package.json var/axe/ && \
			(cd var/axe && npm install --no-audit --no-fund --silent) \
				|| echo "axe-deps: npm install failed; the axe checks will be skipped"; \
		else echo "axe-deps: no npm; the axe checks will be skipped"; fi; \
	fi

# nginx for the production-setup test (tests/api/test_slow_clients.py); best effort, it skips without.
nginx-deps:
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null) \
				|| echo "nginx-deps: apt-get failed; the slow-client test will be skipped"; \
		else echo "nginx-deps: not root or no apt-get; the slow-client test will be skipped"; fi; \
	fi

lint: venv-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: venv-dev browser-deps axe-deps nginx-deps lint model
	$(BIN)/pytest -n 2 --dist loadgroup

bench: venv-dev model
	$(BIN)/python -m bench.run

# Console screenshots for docs/ and the README (needs Debian's chromium: make browser-deps).
screenshots: venv-dev browser-deps
	rm -f docs/screenshots/*.png
	$(BIN)/python -m api.console.screenshots --out docs/screenshots

# var/ holds the live SQLite database (var/bansha.sqlite3, see models/database.py) and the
# console's session secret: clean removes only what a build makes, the trained model included.
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
	rm -f $(MODEL)
	find game_rules -name '*.so' -delete
	rm -f game_rules__mypyc*.so
