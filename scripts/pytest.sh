#!/usr/bin/env bash
# `make pytest`: every test, on every core (pytest-xdist), with a throwaway PostgreSQL server
# of its own (scripts/postgres-server.sh run) and Chromium where it is installed; pytest's
# last lines list what did not run and why. Each module's tests run in one process, so its
# module fixtures (wheels, built projects, a browser) are made once, and the modules with
# slow tests start first (tests/conftest.py). Arguments go to pytest:
#
#   scripts/pytest.sh -x tests/lint
#
# The tests run with TMPDIR set to a new empty folder, which must still be empty at the end:
# a file left there is a test leaving files in the system's temporary folder, and fails the
# run. The folder is outside the repository (a test's project must not sit inside this one,
# where tools looking upwards would find this project's settings), and is deleted at the end
# with pytest's own folders (--basetemp), which are kept only when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/toolgen-tests-XXXXXX")
mkdir "$work/tmp"
status=0
TMPDIR="$work/tmp" bash scripts/postgres-server.sh run -- \
  .venv/bin/python -m pytest -n auto --dist loadscope --no-loadscope-reorder \
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
