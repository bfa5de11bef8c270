#!/usr/bin/env bash
# Install everything the project needs (locked, hash-checked) into .venv, then
# run the whole suite: lint (ruff), types (mypy), the import layers (lint-imports,
# pyproject's [tool.importlinter]) and the tests (pytest -n auto, which
# also drives the installed `ai` in a pseudo-terminal). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes \
    -r requirements-dev.lock
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
echo "== ruff"
.venv/bin/ruff check swebash_py tests bench
echo "== mypy"
.venv/bin/mypy
echo "== import layers"
.venv/bin/lint-imports --no-cache
echo "== pytest"
exec .venv/bin/pytest -q -p no:cacheprovider -n auto "$@"
