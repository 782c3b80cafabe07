#!/usr/bin/env bash
# docs-deps.sh - what the documentation site needs, installed idempotently:
#   - the `docs` dependency group (the project's `docs` extra: mkdocs, mkdocs-material; and
#     selenium for the page tests) into .venv
#   - Debian's chromium + chromium-driver, for the headless page tests (tests/docs)
# Safe to run again: it installs only what is missing. Debian packages need root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ ! -x .venv/bin/python ]; then
    ./inv --version >/dev/null
fi
if ! .venv/bin/python -c "import mkdocs, material, selenium" 2>/dev/null; then
    echo "docs-deps: installing the docs dependency group into .venv" >&2
    .venv/bin/python -m pip install --quiet --group docs
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "docs-deps: chromium and chromium-driver are missing; run as root to install them" >&2
        exit 2
    fi
    echo "docs-deps: installing chromium and chromium-driver (Debian)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core \
        >/dev/null
fi
echo "docs-deps: mkdocs $(.venv/bin/mkdocs --version | awk '{print $3}'), $(chromium --version)" >&2
