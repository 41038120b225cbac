#!/usr/bin/env bash
# The README's install commands, as a new user runs them from a clone (CI runs this: it needs the
# package registry). Each must leave a working `bot` on the PATH it installs to; nothing outside a
# temporary directory is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
temp=$(mktemp -d)
trap 'rm -rf "$temp"' EXIT
python3 -m venv "$temp/tools"
"$temp/tools/bin/pip" install --quiet pipx uv
export PATH="$temp/tools/bin:$PATH"

export PIPX_HOME="$temp/pipx" PIPX_BIN_DIR="$temp/pipx-bin"
pipx install . >/dev/null
"$temp/pipx-bin/bot" run --repo examples/demo-repo --dry-run >/dev/null
echo "try-install: pipx install . gives a working bot"

export UV_TOOL_DIR="$temp/uv" UV_TOOL_BIN_DIR="$temp/uv-bin" UV_CACHE_DIR="$temp/uv-cache"
uv tool install . >/dev/null 2>&1
"$temp/uv-bin/bot" run --repo examples/demo-repo --dry-run >/dev/null
echo "try-install: uv tool install . gives a working bot"
