#!/usr/bin/env bash
# Install `ai` (and `swebash`) from this checkout into its own virtual
# environment, link them into ~/.local/bin, and — given arguments — run
# `ai` with them:   ./scripts/install.sh "why is port 8080 busy?"
#
#   --team     also the team store's PostgreSQL driver (the [team] extra)
#   --images   also Pillow, to downscale large images (the [images] extra)
#   --pip      install with pip only (default: uv, bootstrapped hash-checked
#              from PyPI into a cache; pip when that cannot be had)
#
# Every dependency comes from the hashed lock files (requirements*.lock).
# Re-running installs only what changed: a stamp in the venv remembers the
# lock files and the source it was built from. A venv made by another Python
# (or broken) is rebuilt. PYTHON, SWEBASH_VENV and SWEBASH_BIN override the
# interpreter, the venv and the link directory.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
venv=${SWEBASH_VENV:-$HOME/.local/share/swebash-py/venv}
bin=${SWEBASH_BIN:-$HOME/.local/bin}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/swebash-py
uv_version=0.13.8  # requirements-uv.lock pins it, with its hashes
locks=(requirements.lock)
installer=uv
started=$SECONDS

say() { printf 'install: %s\n' "$*" >&2; }
die() { printf 'install: %s\n' "$*" >&2; exit 1; }

while [ "$#" -gt 0 ]; do
    case "$1" in
        --team|--images) locks+=("requirements-${1#--}.lock"); shift ;;
        --pip) installer=pip; shift ;;
        -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
        --) shift; break ;;
        *) break ;;
    esac
done

# 1. Python: first, and say what is needed.
command -v "$python" >/dev/null 2>&1 ||
    die "swebash-py needs Python >= 3.11; '$python' was not found (set PYTHON=/path/to/python3.11)"
want=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "swebash-py needs Python >= 3.11; $python is $want (set PYTHON=/path/to/python3.11 or newer)"
say "[1/4] Python $want ($(command -v "$python"))"

# 2. The venv: kept only when it is one, it runs, and it was made by this Python.
venv_version() {  # the venv's Python as it runs, and as its pyvenv.cfg says
    local ran cfg
    ran=$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || return 1
    cfg=$(sed -n 's/^version\(_info\)\{0,1\} *= *\([0-9]*\.[0-9]*\).*/\2/p' "$venv/pyvenv.cfg" | head -1)
    [ "$ran" = "$cfg" ] || return 1
    echo "$ran"
}
if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
    die "$venv exists and is not a virtual environment: move it away or set SWEBASH_VENV"
fi
if [ -f "$venv/pyvenv.cfg" ]; then
    have=$(venv_version || echo "unusable")
    if [ "$have" != "$want" ]; then
        say "[2/4] rebuilding $venv: it was made by Python $have, this is $want"
        rm -rf "$venv"
    fi
fi
if [ ! -f "$venv/pyvenv.cfg" ]; then
    say "[2/4] creating $venv"
    "$python" -m venv "$venv"
else
    say "[2/4] $venv (Python $want)"
fi

# 3. Dependencies, from the hashed locks; skipped when the locks are unchanged.
digest() {  # one SHA-256 of the files (and the files under the folders) named
    "$venv/bin/python" - "$@" <<'PY'
import hashlib, os, sys
h = hashlib.sha256()
def files(top):
    if os.path.isfile(top):
        yield top
        return
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        yield from (os.path.join(root, n) for n in sorted(names))
for name in (f for top in sys.argv[1:] for f in files(top)):
    with open(name, "rb") as f:
        h.update(name.encode() + b"\0" + f.read())
print(h.hexdigest())
PY
}
stamp_deps="$venv/.swebash-deps"
stamp_self="$venv/.swebash-self"
deps=$(digest "${locks[@]}")
uv=""
find_uv() {  # uv from the cache, bootstrapped there with pip (hash-checked) once
    local dir="$cache/uv-$uv_version"
    if [ ! -x "$dir/bin/uv" ]; then
        say "      fetching uv $uv_version (hash-checked) into $dir"
        rm -rf "$dir.tmp"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
            --only-binary :all: --require-hashes --target "$dir.tmp" -r requirements-uv.lock ||
            return 1
        rm -rf "$dir" && mv "$dir.tmp" "$dir"
    fi
    [ -x "$dir/bin/uv" ] && "$dir/bin/uv" --version >/dev/null 2>&1 || return 1
    uv="$dir/bin/uv"
}
picked=""
pick_installer() {  # only when something is to be installed: a current venv needs no uv
    [ -z "$picked" ] || return 0
    picked=1
    if [ "$installer" = uv ] && ! find_uv; then
        say "      uv could not be had: installing with pip"
        installer=pip
    fi
}
# the platform's CA store, as pip's truststore uses it (a proxy's own CA works);
# bytecode compiled now, as pip does, not by the first `ai` run (litellm alone: seconds)
uv_args=(--python "$venv/bin/python" --system-certs --compile-bytecode)
lock_args=()
for lock in "${locks[@]}"; do lock_args+=(-r "$lock"); done
if [ -f "$stamp_deps" ] && [ "$(cat "$stamp_deps")" = "$deps" ]; then
    say "[3/4] dependencies: current (${locks[*]})"
else
    pick_installer
    say "[3/4] dependencies from ${locks[*]} (with $installer)"
    rm -f "$stamp_deps"
    if [ "$installer" = uv ] &&
        ! "$uv" pip install "${uv_args[@]}" --require-hashes "${lock_args[@]}"; then
        say "      uv failed: installing with pip"
        installer=pip
    fi
    if [ "$installer" = pip ]; then
        "$venv/bin/python" -m pip install --disable-pip-version-check --require-hashes \
            --progress-bar on "${lock_args[@]}"
    fi
    echo "$deps" >"$stamp_deps"
fi

# 4. swebash-py itself: reinstalled only when its source changed.
self=$(digest pyproject.toml swebash_py)
if [ -f "$stamp_self" ] && [ "$(cat "$stamp_self")" = "$self" ] && [ -x "$venv/bin/ai" ]; then
    say "[4/4] swebash-py: current"
else
    pick_installer
    say "[4/4] swebash-py from $(pwd)"
    rm -f "$stamp_self"
    if [ "$installer" = uv ] &&
        ! "$uv" pip install "${uv_args[@]}" --quiet --no-deps --reinstall-package swebash-py .
    then
        say "      uv failed: installing with pip"
        installer=pip
    fi
    if [ "$installer" = pip ]; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
            --force-reinstall .
    fi
    echo "$self" >"$stamp_self"
fi

mkdir -p "$bin"
ln -sf "$venv/bin/ai" "$bin/ai"
ln -sf "$venv/bin/swebash" "$bin/swebash"
say "installed: $bin/ai ($("$bin/ai" --version)) in $((SECONDS - started)) s"
case ":$PATH:" in *":$bin:"*) ;; *) say "note: add $bin to your PATH" ;; esac
if [ "$#" -gt 0 ]; then
    exec "$bin/ai" "$@"
fi
