#!/usr/bin/env bash
# `make pytest`: every test, on every core (pytest-xdist), with a throwaway PostgreSQL server
# of its own (scripts/postgres-server.sh run) and Chromium where it is installed; pytest's
# last lines list what did not run and why. Each module's tests run in one process, so its
# module fixtures (wheels, built projects, a browser) are made once, and the modules with
# slow tests start first (tests/conftest.py). Arguments go to pytest:
#
#   scripts/pytest.sh -x tests/lint
#
# Python writes bytecode during the run, as it does on a user's machine, even where the machine
# sets PYTHONDONTWRITEBYTECODE (this one does): the hundreds of processes the tests start then
# read what the first compiled (toolgen, the runtime, generated packages) instead of compiling
# it again each, and pytest keeps its rewritten test modules (collecting every test takes 9 s
# without, 5 s once they are kept). On a fresh clone, one run each: 3 min 26 s and 4 min 37 s
# of user CPU time, against 3 min 37 s and 4 min 56 s without.
#
# The tests run with TMPDIR set to a new empty folder, which must still be empty at the end:
# a file left there is a test leaving files in the system's temporary folder, and fails the
# run. The folder is outside the repository (a test's project must not sit inside this one,
# where tools looking upwards would find this project's settings), and is deleted at the end
# with pytest's own folders (--basetemp), which are kept only when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

# one worker more than there are cores: tests wait on the processes, servers and timers they
# start, and the extra worker uses the cores meanwhile (on this 2-core machine: 3:40 and 3:52
# with 2 workers; 3:16, 3:25 and 3:31 with 3; 3:23 with 4)
workers=$(($(nproc) + 1))
work=$(mktemp -d "${TMPDIR:-/tmp}/toolgen-tests-XXXXXX")
mkdir "$work/tmp"
status=0
# Hypothesis keeps the Unicode tables it derives (1.3 s of CPU to make) in its storage folder,
# by default .hypothesis/ in the working folder: the generated tests that other tests run in
# new projects made them again in each. One folder for the whole run shares them.
HYPOTHESIS_STORAGE_DIRECTORY="$work/hypothesis" \
TMPDIR="$work/tmp" env -u PYTHONDONTWRITEBYTECODE bash scripts/postgres-server.sh run -- \
  .venv/bin/python -m pytest -n "$workers" --dist loadscope --no-loadscope-reorder \
  --basetemp="$work/pytest" "$@" || status=$?

if [[ -n "$(ls -A "$work/tmp")" ]]; then
  echo "FAILED: the tests left files in the temporary folder (TMPDIR), which must stay empty:"
  (cd "$work/tmp" && find . -mindepth 1 -maxdepth 2 | sort | head -n 40)
  [[ $status -ne 0 ]] || status=1
fi
if [[ $status -eq 0 ]]; then
  rm -rf "$work"
else
  rm -rf "$work/tmp"
  echo "the temporary folders of the tests that failed are kept in $work/pytest"
fi
exit "$status"
