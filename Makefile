# The two commands of the README: `make build` (set up, then compile the example catalogue)
# and `make test` (every check CI runs). Both work on a fresh machine with python3.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.toolgen-installed

.PHONY: setup build test check lint typecheck pytest fuzz bench clean

setup: $(STAMP)

# uv installs the environment: `make setup` takes about 15 s from a fresh clone, where pip took
# about 40 s (upgrading itself, then resolving, unpacking and byte-compiling one package at a
# time). tests/test_wheel.py installs its new environments with this uv, offline, from the cache
# this install fills, and builds its wheels with the pip venv gives this environment. Where uv
# cannot be installed or cannot reach the packages (it reads no pip.conf), pip installs them
# (and tests/test_wheel.py says it skipped, and why).
$(STAMP): pyproject.toml runtime/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	( $(BIN)/python -m pip install --quiet uv \
		&& $(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode \
			-e ./runtime -e '.[dev]' ) \
		|| $(BIN)/python -m pip install --quiet -e ./runtime -e '.[dev]'
	touch $@

build: setup
	$(BIN)/toolgen build

check: setup
	$(BIN)/toolgen check
	$(BIN)/toolgen build --check
	$(BIN)/python -m toolgen.refdocs --check

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the compiler and the runtime, then the generated code: the example's and every golden
# tree's (tests/test_golden.py holds those equal to what a build writes)
typecheck: setup
	$(BIN)/mypy --strict -p toolgen -p toolgen_runtime
	$(BIN)/mypy --strict generated impl $(wildcard tests/golden/*/expected/*)

# Every test, on every core, with a throwaway PostgreSQL server, and a check that no test
# leaves a file in the temporary folder (scripts/pytest.sh says how). PYTEST_ARGS adds
# options: `make pytest PYTEST_ARGS="-x tests/lint"`.
PYTEST_ARGS ?=

pytest: setup
	bash scripts/pytest.sh $(PYTEST_ARGS)

# `make check` and mypy run beside the tests, their output shown after the tests': from a
# cold cache (a fresh clone) mypy takes one core for about 20 s, which the tests leave idle
# often enough (processes and servers they wait for) to hide most of it; before them, it
# added those seconds to the run. The lock on .mypy_cache is held meanwhile:
# tests/attack/test_hostile_names.py waits for it before its own mypy run on that cache.
test: lint
	@mkdir -p .mypy_cache; out=$$(mktemp); \
	flock .mypy_cache/lock $(MAKE) --no-print-directory check typecheck >"$$out" 2>&1 & \
	checks=$$!; $(MAKE) --no-print-directory pytest; tests=$$?; \
	wait $$checks; checked=$$?; cat "$$out"; rm -f "$$out"; \
	[ $$checked -eq 0 ] || echo "make test: make check typecheck failed (above)"; \
	[ $$tests -eq 0 ] && [ $$checked -eq 0 ]

# The long fuzz: every tool of the example and kitchen-sink catalogues, FUZZ_EXAMPLES random
# calls each after the sweep, with a new seed each time (printed; FUZZ_SEED=N repeats a run).
FUZZ_EXAMPLES ?= 2000
FUZZ_SEED ?= $(shell date +%s)

fuzz: setup
	@echo "fuzz: $(FUZZ_EXAMPLES) calls a tool, TOOLGEN_FUZZ_SEED=$(FUZZ_SEED)"
	TOOLGEN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) TOOLGEN_FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/python -m pytest -s tests/runtime/test_fuzz_catalogues.py

# the benchmark suite (docs/performance.md), 20 to 40 minutes on 2 cores; a smoke run:
# `make bench BENCH_ARGS=--quick`. The first run installs openapi-python-client, the
# baseline, into bench/.venv-baseline.
bench: setup
	$(BIN)/python bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
