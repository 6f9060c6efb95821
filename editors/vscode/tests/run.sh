#!/usr/bin/env bash
# The VS Code extension's tests, in one command: installs what they need when it is missing
# (Debian packages; npm packages into git-ignored folders of this directory), type-checks the
# extension and its page, packages the extension and the fixture extension as .vsix files,
# runs the unit tests (node --test, `vscode` stubbed) and the end-to-end tests (code-server in
# headless Chromium), and ends with `vscode: N passed, M failed`.
#
#   ASKD_BIN=path/to/askd editors/vscode/tests/run.sh
#
# ASKD_VSCODE_TESTS=unit runs only the lint and the unit tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ext="$(dirname "$here")"
work="$ext/.test"

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

# askd keeps the flows it holds open in a state directory: the tests use one of their own,
# emptied first, never the user's.
export XDG_STATE_HOME="$work/state"
rm -rf "$XDG_STATE_HOME"
# A hub's discovery file goes to a runtime folder of the tests' own, never the user's (whose
# hub the extension would otherwise attach to), and no hub opens a browser.
export XDG_RUNTIME_DIR="$work/runtime"
rm -rf "$XDG_RUNTIME_DIR"
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
export ASKD_NO_BROWSER=1

passed=0
failed=0
finish() {
  echo "vscode: took ${SECONDS}s"
  echo "vscode: $passed passed, $failed failed"
  [[ "$failed" -eq 0 ]]
}
# A step that cannot go wrong without stopping the rest: it counts as one failure.
abort() {
  echo "vscode: $1" >&2
  failed=$((failed + 1))
  finish
  exit 1
}

mkdir -p "$work/tmp" "$work/npm-cache"
# npm's cache and every temporary file stay inside this directory.
export npm_config_cache="$work/npm-cache"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# Debian packages: Chromium and a font for the browser; ripgrep, a C++ toolchain, Python and
# Kerberos headers for code-server's native modules.
needed=()
command -v chromium >/dev/null 2>&1 || needed+=(chromium)
[[ -d /usr/share/fonts/truetype/dejavu ]] || needed+=(fonts-dejavu-core)
command -v rg >/dev/null 2>&1 || needed+=(ripgrep)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || needed+=(build-essential)
command -v python3 >/dev/null 2>&1 || needed+=(python3)
command -v pkg-config >/dev/null 2>&1 || needed+=(pkg-config)
[[ -f /usr/include/krb5.h || -f /usr/include/krb5/krb5.h ]] || needed+=(libkrb5-dev)
if [[ "${ASKD_VSCODE_TESTS:-all}" != unit && ${#needed[@]} -gt 0 ]]; then
  echo "vscode: installing ${needed[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null \
    || abort "apt-get install ${needed[*]} failed"
fi

# `npm ci` into $1 from the package.json and package-lock.json in $2, unless the lock file
# installed there last is the same. Extra arguments go to npm.
npm_ci() {
  local into="$1" from="$2"
  shift 2
  if [[ -f "$into/node_modules/.askd-lock.json" ]] && cmp -s "$from/package-lock.json" "$into/node_modules/.askd-lock.json"; then
    return 0
  fi
  if [[ "$into" != "$from" ]]; then
    mkdir -p "$into"
    cp "$from/package.json" "$from/package-lock.json" "$into/"
  fi
  (cd "$into" && npm ci --no-audit --no-fund "$@") || return 1
  cp "$from/package-lock.json" "$into/node_modules/.askd-lock.json"
}

echo "vscode: npm packages of the extension (at ${SECONDS}s)"
npm_ci "$ext" "$ext" --omit=optional >"$work/npm-extension.log" 2>&1 \
  || { tail -30 "$work/npm-extension.log" >&2; abort "npm ci of the extension failed"; }

if [[ "${ASKD_VSCODE_TESTS:-all}" != unit ]]; then
  echo "vscode: code-server and playwright-core (at ${SECONDS}s)"
  # code-server's postinstall builds native modules with node's own headers (no download),
  # runs `npx node-gyp` unasked, refuses to run as root without unsafe-perm, and takes
  # ripgrep from the cache seeded here instead of downloading it.
  rg_cache="$work/tmp/vscode-ripgrep-cache-1.15.11"
  rg_tarball="$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
  if [[ ! -f "$rg_tarball" ]]; then
    mkdir -p "$rg_cache/rg-bin"
    cp "$(command -v rg)" "$rg_cache/rg-bin/rg"
    tar -czf "$rg_tarball" -C "$rg_cache/rg-bin" rg
    rm -rf "$rg_cache/rg-bin"
  fi
  TMPDIR="$work/tmp" npm_config_nodedir=/usr npm_config_yes=true npm_config_unsafe_perm=true \
    npm_ci "$work/e2e" "$here/e2e" >"$work/npm-e2e.log" 2>&1 \
    || { tail -30 "$work/npm-e2e.log" >&2; abort "npm ci of code-server and playwright-core failed"; }
fi

# Lint: the extension (strict TypeScript) and its page script (checked JavaScript).
cd "$ext"
node scripts/copy-web.js || abort "copying the web renderer failed"
if npx --no-install tsc -p tsconfig.json --noEmit && npx --no-install tsc -p tsconfig.page.json; then
  echo "ok - lint: tsc --noEmit (strict) of src/ and media/panel.js"
  passed=$((passed + 1))
else
  echo "not ok - lint: tsc --noEmit (strict) of src/ and media/panel.js"
  failed=$((failed + 1))
fi

if [[ "${ASKD_VSCODE_TESTS:-all}" == unit ]]; then
  npx --no-install tsc -p tsconfig.json || abort "compiling the extension failed"
else
  # Packaging compiles the extension (its vscode:prepublish script) for the unit tests too.
  echo "vscode: packaging (at ${SECONDS}s)"
  npx --no-install vsce package --allow-missing-repository --out "$work/askd-vscode.vsix" \
    >"$work/package.log" 2>&1 || { cat "$work/package.log" >&2; abort "vsce package of the extension failed"; }
  if python3 -c 'import sys, zipfile; sys.exit("extension/LICENSE.md" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
    "$work/askd-vscode.vsix" && ! grep -q "LICENSE.*not found" "$work/package.log"; then
    echo "ok - package: the .vsix carries LICENSE.md"
    passed=$((passed + 1))
  else
    echo "not ok - package: the .vsix carries LICENSE.md"
    failed=$((failed + 1))
  fi
  (cd "$here/fixture-extension" && "$ext/node_modules/.bin/vsce" package --no-dependencies \
    --allow-missing-repository --skip-license --out "$work/askd-fixture.vsix") \
    >"$work/package-fixture.log" 2>&1 || { cat "$work/package-fixture.log" >&2; abort "vsce package of the fixture failed"; }
fi

# `node --test` over the files given, its TAP kept to count the results.
run_node_tests() {
  local name="$1"
  shift
  local tap="$work/$name.tap"
  node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@" || true
  local pass fail
  pass="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" | tail -1)"
  fail="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" | tail -1)"
  if [[ -z "$pass" || -z "$fail" ]]; then
    echo "vscode: the $name tests did not report" >&2
    fail=1
    pass=0
  fi
  passed=$((passed + pass))
  failed=$((failed + fail))
}

echo "vscode: unit tests (at ${SECONDS}s)"
run_node_tests unit tests/unit/*.test.js

if [[ "${ASKD_VSCODE_TESTS:-all}" != unit ]]; then
  # End whatever code-server left behind if a test run is interrupted (its process groups).
  stop_code_servers() {
    for pid_file in "$work"/run/*/code-server.pid; do
      [[ -f "$pid_file" ]] && kill -TERM -- "-$(cat "$pid_file")" 2>/dev/null || true
    done
  }
  trap stop_code_servers EXIT
  echo "vscode: end-to-end tests (code-server in headless Chromium) (at ${SECONDS}s)"
  TMPDIR="$work/tmp" run_node_tests e2e --test-concurrency=1 --test-timeout=240000 tests/e2e/*.test.js
  echo "vscode: screenshots in $work/screenshots/"
fi

finish
