#!/usr/bin/env bash
# Runs the plugin's tests in a headless Neovim against the askd binary named by $ASKD_BIN.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
if [[ -z "${ASKD_BIN:-}" ]]; then
  echo "usage: ASKD_BIN=path/to/askd $0" >&2
  exit 2
fi
# An absolute path, so that the tests find it whatever their working directory.
if [[ "$ASKD_BIN" == */* ]]; then
  ASKD_BIN="$(cd "$(dirname "$ASKD_BIN")" && pwd)/$(basename "$ASKD_BIN")"
else
  ASKD_BIN="$(command -v "$ASKD_BIN")"
fi
export ASKD_BIN
exec nvim --headless -u NONE -i NONE \
  -c "set rtp+=$plugin" \
  -c "runtime plugin/askd.lua" \
  -c "luafile $here/run.lua"
