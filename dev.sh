#!/usr/bin/env bash
# tapeviz developer entry point: the two README quick-start commands.
#
#   ./dev.sh lessons [jupyter-lab args...]   set up, then open notebooks/ in JupyterLab
#   ./dev.sh test    [pytest args...]        set up, then run every test
#   ./dev.sh quick   [pytest args...]        set up, then run the quick tier (tests -m quick)
#   ./dev.sh docs    [sphinx args...]        set up, then build the docs into docs/_build/html
#   ./dev.sh setup                           only set up (.venv)
#
# Setup is idempotent and fast when nothing changed: a stamp file inside
# .venv holds a hash of pyproject.toml + dev.sh (+ the Python version), and
# pip is skipped while it matches.
#
# Environment:
#   PYTHON=python3.12                   interpreter used to create .venv (default python3, must be >= 3.10)
#   TAPEVIZ_SKIP_SYSTEM_INSTALL=1       never run apt-get/brew; only print what to install
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
STAMP="$VENV/.tapeviz-setup-stamp"
MIN_PY="3.10"

log()  { printf '[dev.sh] %s\n' "$*" >&2; }
warn() { printf '[dev.sh] WARNING: %s\n' "$*" >&2; }
die()  { printf '[dev.sh] ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    cat >&2 <<'EOF'
usage: ./dev.sh lessons [jupyter lab args...]   open the lesson notebooks in JupyterLab
       ./dev.sh test [pytest args...]           run the whole test suite
       ./dev.sh quick [pytest args...]          run the quick tier: tests/ -m quick (nothing slow, no browser)
       ./dev.sh docs [sphinx-build args...]     build the documentation into docs/_build/html
       ./dev.sh setup                           only create/refresh .venv
EOF
}

# Run a command as root: directly when we are root, via passwordless sudo
# otherwise. Returns 1 (without running anything) when neither is possible.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        sudo -n "$@"
    else
        return 1
    fi
}

can_root() {
    [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; }
}

system_install_allowed() {
    [ "${TAPEVIZ_SKIP_SYSTEM_INSTALL:-0}" != "1" ]
}

apt_updated=0
apt_install() {
    # apt_install PKG... ; returns non-zero on failure
    if [ "$apt_updated" -eq 0 ]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || return 1
}

# --- Python interpreter -------------------------------------------------------
# One interpreter start (pyenv shims are slow): prints "MAJOR.MINOR OK|OLD HASH",
# where HASH covers everything that decides what gets installed into .venv.
check_python() {
    command -v "$PY" >/dev/null 2>&1 \
        || die "Python interpreter '$PY' not found. Install Python >= $MIN_PY or set PYTHON=/path/to/python3."
    local info py_ok
    info="$("$PY" - pyproject.toml dev.sh <<'EOF'
import hashlib, sys
ver = "%d.%d" % sys.version_info[:2]
h = hashlib.sha256(ver.encode())
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        h.update(b"\0" + path.encode() + b"\0" + f.read())
sys.stdout.write("%s %s %s" % (ver, "OK" if sys.version_info >= (3, 10) else "OLD", h.hexdigest()))
EOF
)" || die "could not run '$PY'."
    read -r PY_VER py_ok SETUP_HASH <<<"$info"
    [ "$py_ok" = "OK" ] \
        || die "tapeviz needs Python >= $MIN_PY, but '$PY' is Python $PY_VER. Set PYTHON=/path/to/python3.10+ (e.g. PYTHON=python3.12 ./dev.sh test)."
}

# --- graph layout ---------------------------------------------------------------
# Pictures are laid out by Graphviz's `dot` when the system has one, else by the
# graphviz-pure wheel that pip installs with tapeviz[viz]: no apt/brew needed.
report_layout() {
    local program
    program="$("$VPY" -c 'from tapeviz.viz import render; print(render.dot_binary() or "")' 2>/dev/null || true)"
    if [ -n "$program" ]; then
        log "pictures are laid out by $program"
    else
        warn "no graph layout program: tapes will show as tables (pip install graphviz-pure, or install Graphviz)."
    fi
}

# --- Chromium, for the browser tests (tests/browser/test_browser.py) -------------------
# Debian's chromium-headless-shell package (Chromium without its windows: the same Blink, about
# a third less CPU a page, and a smaller install than the chromium package), else chromium,
# driven by the `playwright` Python package (from the [test] extra) through its
# executable_path: Playwright never downloads a browser.
ensure_chromium() {
    command -v chromium-headless-shell >/dev/null 2>&1 && return 0
    if system_install_allowed && [ "$(uname -s)" = "Linux" ] && command -v apt-get >/dev/null 2>&1 && can_root; then
        log "installing Debian's 'chromium-headless-shell' package for the browser tests..."
        apt_install chromium-headless-shell \
            || { command -v chromium >/dev/null 2>&1 || apt_install chromium; } \
            || warn "apt-get install chromium-headless-shell (or chromium) failed."
    fi
    hash -r
    command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1 \
        || warn "Chromium is not installed: the browser tests will be skipped (Debian/Ubuntu: sudo apt-get install chromium-headless-shell)."
}

# --- configurable-http-proxy, for the JupyterHub test (tests/lessons/test_jupyterhub.py) ---
# JupyterHub's proxy is an npm package: installed into .venv/node_modules when npm is there
# (a few seconds, once); without npm the test is skipped, saying why.
ensure_http_proxy() {
    command -v configurable-http-proxy >/dev/null 2>&1 && return 0
    [ -x "$VENV/node_modules/.bin/configurable-http-proxy" ] && return 0
    if command -v npm >/dev/null 2>&1; then
        log "installing configurable-http-proxy (npm) into .venv/node_modules for the JupyterHub test..."
        npm install --prefix "$VENV" --no-audit --no-fund --silent configurable-http-proxy >/dev/null \
            || warn "npm install configurable-http-proxy failed: the JupyterHub test will be skipped."
    else
        warn "npm not found: the JupyterHub test will be skipped (install Node.js and npm to run it)."
    fi
}

# --- venv support -------------------------------------------------------------
venv_supported() {
    # Debian/Ubuntu split venv/ensurepip into python3-venv; without it
    # 'python3 -m venv' fails. A throwaway venv is the only reliable check.
    local tmp rc=0
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/tapeviz-venvcheck.XXXXXX")"
    "$PY" -m venv "$tmp/v" >/dev/null 2>&1 && [ -x "$tmp/v/bin/python" ] && "$tmp/v/bin/python" -m pip --version >/dev/null 2>&1 || rc=1
    rm -rf "$tmp"
    return "$rc"
}

ensure_venv_support() {
    venv_supported && return 0
    if [ "$(uname -s)" = "Linux" ] && command -v apt-get >/dev/null 2>&1; then
        if system_install_allowed && can_root; then
            log "'$PY -m venv' does not work (python3-venv missing); installing it with apt-get..."
            apt_install python3-venv || apt_install "python${PY_VER}-venv" || true
            venv_supported && return 0
        fi
        die "'$PY -m venv' does not work: the venv/ensurepip module is missing.
[dev.sh]        Install it with:  sudo apt-get install python3-venv   (or python${PY_VER}-venv)
[dev.sh]        then run this command again."
    fi
    die "'$PY -m venv' does not work: your Python lacks the venv/ensurepip modules.
[dev.sh]        Install a full Python >= $MIN_PY (python.org, Homebrew, pyenv or conda) and/or set PYTHON=..."
}

# --- .venv + pip --------------------------------------------------------------
# The same packages pip would install, by uv (from PyPI, into .venv): it downloads in parallel,
# 90 s -> 16 s for a fresh .venv. uv does not read pip's configuration (an index set in pip.conf,
# say): where uv cannot be had or fails, pip installs. No bytecode is compiled at install: that was
# 20 of the install's 24 s of CPU, for the 8,610 modules of .venv, of which a fresh-clone test run
# imports half (4,232); Python writes their bytecode as it first imports them (write_bytecode).
# .venv is made without pip (ensurepip costs ~6 s of a fresh clone's setup): the interpreter's own
# pip puts uv into it (pip >= 22.3 installs into another environment), and uv installs pip there
# with the rest. pip in .venv is bootstrapped only when the interpreter has no pip or uv fails.
pip_in_venv() {
    "$VPY" -m pip --version >/dev/null 2>&1 && return 0
    "$VPY" -m ensurepip --upgrade >/dev/null 2>&1 && return 0
    ensure_venv_support   # installs python3-venv (ensurepip) where it can, else stops and says how
    "$VPY" -m ensurepip --upgrade >/dev/null
}

uv_into_venv() {
    "$PY" -m pip --python "$VPY" install --quiet --disable-pip-version-check uv >/dev/null 2>&1 && return 0
    pip_in_venv && "$VPY" -m pip install --quiet --disable-pip-version-check uv >/dev/null 2>&1
}

# One package is left out: rfc3987-syntax (jsonschema[format-nongpl]'s, for nbformat and
# jupyter-events) builds ~35 Earley parsers as it is imported, ~1 s of CPU in every process that
# imports nbformat (pytest with nbval, JupyterLab, nbgrader, nbclient, Sphinx's myst-nb); no
# Jupyter schema uses the `iri` formats it checks (jsonschema issue #1428). A marker that is never
# true overrides the requirement away (uv only; pip installs it).
LEFT_OUT='rfc3987-syntax ; sys_platform == "never"'

install_packages() {
    if uv_into_venv \
        && "$VENV/bin/uv" pip install --quiet --python "$VPY" --override <(printf '%s\n' "$LEFT_OUT") \
            --upgrade-package pip pip -e '.[test,docs]'; then
        return 0
    fi
    warn "uv could not install the packages; pip installs them instead (a few minutes)."
    pip_in_venv || die "no pip in .venv (see above)."
    "$VPY" -m pip install --quiet --disable-pip-version-check --upgrade pip \
        || die "upgrading pip in .venv failed (see above)."
    "$VPY" -m pip install --quiet --disable-pip-version-check --progress-bar off -e '.[test,docs]' \
        || die "pip install -e '.[test,docs]' failed (see above)."
}

setup() {
    check_python

    local want="$SETUP_HASH"
    if [ -x "$VPY" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] \
        && "$VPY" -c '' >/dev/null 2>&1; then
        return 0   # up to date: nothing to do
    fi

    # (Re)create .venv when missing, broken, or made by another Python version.
    if [ -e "$VENV" ]; then
        local have_ver
        have_ver="$("$VPY" -c 'import sys; sys.stdout.write("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
        if [ "$have_ver" != "$PY_VER" ] || ! "$VPY" -m pip --version >/dev/null 2>&1; then
            log "existing .venv is broken or uses Python '${have_ver:-?}' (want $PY_VER); recreating it."
            rm -rf "$VENV"
        fi
    fi
    if [ ! -e "$VENV" ]; then
        log "creating .venv with $PY (Python $PY_VER)..."
        # Without pip (install_packages puts uv, then pip, into it); only a failure sends us to
        # check (and install) the venv support.
        if ! { "$PY" -m venv --without-pip "$VENV" >/dev/null 2>&1 && "$VPY" -c '' >/dev/null 2>&1; }; then
            rm -rf "$VENV"
            ensure_venv_support
            "$PY" -m venv "$VENV" || { rm -rf "$VENV"; die "'$PY -m venv .venv' failed."; }
        fi
    fi

    rm -f "$STAMP"
    log "installing tapeviz and its [test,docs] extras into .venv..."
    install_packages
    printf '%s' "$want" > "$STAMP"
    report_layout
    log "setup done."
}

# --- bytecode -------------------------------------------------------------------
# A run starts ~80 Python processes (workers, kernels, servers, fresh interpreters). Where
# PYTHONDONTWRITEBYTECODE is set, none writes its bytecode: each compiles tapeviz again, and
# pytest rewrites every test module in each worker (8 s -> 4 s of CPU per worker). Setup compiles
# none of .venv's either (install_packages). Every command that runs Python lets it write its
# bytecode: into .venv, and into the __pycache__/ folders git ignores.
write_bytecode() {
    unset PYTHONDONTWRITEBYTECODE
}

# --- commands -----------------------------------------------------------------
cmd="${1:-}"
[ $# -gt 0 ] && shift
write_bytecode   # every command, its setup included

case "$cmd" in
    lessons)
        setup
        lab_args=()
        # Jupyter refuses to start as root (common in containers) without this.
        [ "$(id -u)" -eq 0 ] && lab_args+=(--allow-root)
        log "starting JupyterLab on notebooks/ (Ctrl-C to stop)..."
        exec "$VENV/bin/jupyter" lab notebooks/ ${lab_args[@]+"${lab_args[@]}"} "$@"
        ;;
    test)
        setup
        ensure_chromium
        ensure_http_proxy
        # The test command: tests/ and every lesson notebook (nbval runs each
        # notebook and compares the outputs of cells tagged nbval-check-output).
        # Paths given on the command line replace the default "tests notebooks".
        paths=(tests notebooks)
        for arg in "$@"; do
            case "$arg" in -*) ;; *) [ -e "${arg%%::*}" ] && paths=() ;; esac
        done
        # Lint and format first (configured in pyproject.toml): a failure names the file and line.
        "$VENV/bin/ruff" check . && "$VENV/bin/ruff" format --check . \
            || die "ruff found problems (above). Fix them, or run: .venv/bin/ruff check --fix . && .venv/bin/ruff format ."
        # One worker per core (pytest-xdist), a whole file per worker (a notebook's cells share one
        # kernel) or a whole class (the browser lessons are two, each run in its own JupyterLab),
        # the longest first (tests/conftest.py orders them). `-n 0` (after these) runs serially.
        exec "$VPY" -m pytest ${paths[@]+"${paths[@]}"} -n auto --dist loadscope --no-loadscope-reorder --nbval-lax --nbval-current-env \
            --nbval-sanitize-with notebooks/sanitize.cfg "$@"
        ;;
    quick)
        setup
        # The inner loop: every test not marked slow or browser, no notebooks
        # (tests/conftest.py adds the `quick` marker).
        "$VENV/bin/ruff" check . && "$VENV/bin/ruff" format --check . \
            || die "ruff found problems (above). Fix them, or run: .venv/bin/ruff check --fix . && .venv/bin/ruff format ."
        exec "$VPY" -m pytest tests -m quick -n auto --dist loadscope --no-loadscope-reorder "$@"
        ;;
    docs)
        setup
        # The documentation site (Sphinx + myst-nb), warnings as errors; lessons
        # are rendered with their stored outputs, not executed again.
        log "building docs/ into docs/_build/html ..."
        exec "$VPY" -m sphinx -W --keep-going -b html -q docs docs/_build/html "$@"
        ;;
    setup)
        setup
        ;;
    -h|--help|help)
        usage
        ;;
    *)
        usage
        exit 2
        ;;
esac
