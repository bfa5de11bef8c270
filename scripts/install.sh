#!/usr/bin/env bash
# Install `ai` (and `swebash`) from this checkout into its own virtual
# environment, link them into ~/.local/bin, and — given arguments — run
# `ai` with them:   ./scripts/install.sh "why is port 8080 busy?"
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
venv=${SWEBASH_VENV:-$HOME/.local/share/swebash-py/venv}
bin=${SWEBASH_BIN:-$HOME/.local/bin}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
    -r requirements.lock
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall .
mkdir -p "$bin"
ln -sf "$venv/bin/ai" "$bin/ai"
ln -sf "$venv/bin/swebash" "$bin/swebash"
echo "installed: $bin/ai ($("$bin/ai" --version))" >&2
case ":$PATH:" in *":$bin:"*) ;; *) echo "note: add $bin to your PATH" >&2 ;; esac
if [ "$#" -gt 0 ]; then
    exec "$bin/ai" "$@"
fi
