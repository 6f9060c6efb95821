#!/usr/bin/env bash
# The dialects held against the agents' own artifacts: the MCP SDK's zod schemas, its ajv
# validator and a round trip through its Server and Client; PyPI mcp's pydantic models (a venv
# under target/); the JSON Schema and TypeScript `codex app-server generate-json-schema` and
# `generate-ts` write; `tsc --noEmit` against claude-agent-sdk's and @opencode-ai/sdk's types.
# The npm packages come from the pinned install of tests/agents when the repository has it
# (.ci/agents-install), else from this folder's own pinned lock. Uses the askd binary named by
# $ASKD_BIN (default: target/debug/askd, built when missing). Ends with node's test summary.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/tests/artifacts"
cd "$root"

ASKD_BIN="${ASKD_BIN:-${CARGO_TARGET_DIR:-target}/debug/askd}"
[[ "$ASKD_BIN" == /* ]] || ASKD_BIN="$root/$ASKD_BIN"
[[ -x "$ASKD_BIN" ]] || cargo build --locked --quiet --bin askd
export ASKD_BIN

# Installs `lock`'s folder with npm unless the checksum kept beside its node_modules matches.
npm_install() {
  local folder="$1"
  local stamp="$folder/node_modules/.askd-lock-sha256"
  local want
  want="$(sha256sum "$folder/package-lock.json" | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    (cd "$folder" && npm install --no-save --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
}
if [[ -x .ci/agents-install && -f tests/agents/package-lock.json ]]; then
  .ci/agents-install
  export ARTIFACTS_MODULES="$root/tests/agents/node_modules"
else
  npm_install "$here"
  export ARTIFACTS_MODULES="$here/node_modules"
fi

venv="${CARGO_TARGET_DIR:-target}/artifacts-venv"
[[ "$venv" == /* ]] || venv="$root/$venv"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "$venv/.askd-requirements-sha256" || "$(cat "$venv/.askd-requirements-sha256")" != "$want" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$venv/.askd-requirements-sha256"
fi
export ARTIFACTS_PYTHON="$venv/bin/python"

node --test "$here"/*.test.mjs
