#!/usr/bin/env bash
# Runs the plugin's tests in a headless Neovim against the askd binary named by $ASKD_BIN.
# $NVIM names the Neovim to run (default: nvim on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -z "${ASKD_BIN:-}" ]]; then
  echo "usage: ASKD_BIN=path/to/askd $0" >&2
  exit 2
fi
# An absolute path, so that the tests find it whatever their working directory.
if [[ "$ASKD_BIN" == */* ]]; then
  ASKD_BIN="$(cd "$(dirname "$ASKD_BIN")" && pwd)/$(basename "$ASKD_BIN")"
else
  ASKD_BIN="$(command -v "$ASKD_BIN" || true)"
fi
if [[ ! -x "$ASKD_BIN" ]]; then
  echo "ASKD_BIN does not name an executable askd" >&2
  exit 2
fi
export ASKD_BIN
export ASKD_NVIM_PLUGIN="$(dirname "$here")"
# The hub's discovery file lives in the runtime directory: the tests' engines (`askd serve
# --listen` registers itself as the hub when none runs) use one of their own, never the
# user's, and never open a browser.
runtime="$(mktemp -d "${TMPDIR:-/tmp}/askd-nvim-tests.XXXXXX")"
chmod 700 "$runtime"
trap 'rm -rf "$runtime"' EXIT
export XDG_RUNTIME_DIR="$runtime"
# The flows the tests' engines keep go to a state directory of their own too.
export XDG_STATE_HOME="$runtime/state"
export ASKD_NO_BROWSER=1
"${NVIM:-nvim}" --headless -u NONE -i NONE \
  -c 'lua vim.opt.runtimepath:append(os.getenv("ASKD_NVIM_PLUGIN"))' \
  -c 'runtime plugin/askd.lua' \
  -c 'lua local ok, err = pcall(dofile, os.getenv("ASKD_NVIM_PLUGIN") .. "/tests/run.lua")
    if not ok then io.stdout:write(tostring(err) .. "\n0 passed, 1 failed\n") vim.cmd("cquit 3") end'
