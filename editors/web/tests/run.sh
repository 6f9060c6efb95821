#!/usr/bin/env bash
# Runs the web client's checks against the askd binary named by $ASKD_BIN: installs what they
# need when it is missing (Debian's Chromium and fonts; the pinned dev dependencies with
# `npm ci`), lints the JavaScript, runs the unit tests and the browser tests under `node --test`,
# then prints the key latency benchmark's figures (not checked). Closes with one line,
# "web: N passed, M failed", and exits non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
web="$(dirname "$here")"

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
export XDG_STATE_HOME="$web/tests/output/state"
rm -rf "$XDG_STATE_HOME"

passed=0
failed=0

# Counts one check that is not a test runner's: passed when the command succeeds.
check() {
  local name="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok: $name"
  else
    failed=$((failed + 1))
    echo "FAILED: $name"
  fi
}

# Runs `node --test` on some files, printing its report and adding its counts.
node_tests() {
  local tap
  tap="$(mktemp)"
  node --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  local status=$?
  local pass fail
  pass="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" | tail -1)"
  fail="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" | tail -1)"
  rm -f "$tap"
  if [[ -z "$pass" || -z "$fail" ]]; then
    echo "FAILED: node --test $* gave no counts"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + pass))
  failed=$((failed + fail))
  if [[ $status -ne 0 && $fail -eq 0 ]]; then
    echo "FAILED: node --test $* exited with status $status"
    failed=$((failed + 1))
  fi
}

# What the browser tests need beyond Node: Debian's Chromium, and fonts with every character of
# the screens (DejaVu Sans Mono) and CJK (Noto).
fonts_present() {
  local families
  families="$(fc-list : family 2>/dev/null)"
  [[ "$families" == *"DejaVu Sans Mono"* && "$families" == *"Noto Sans CJK"* ]]
}
if [[ ! -x /usr/bin/chromium ]] || ! fonts_present; then
  echo "installing chromium and fonts with apt-get"
  apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium fonts-dejavu-core fonts-noto-cjk >/dev/null
fi

cd "$web" || exit 2
if ! npm ci --no-audit --no-fund --loglevel=error; then
  echo "FAILED: npm ci"
  echo "web: $passed passed, $((failed + 1)) failed"
  exit 1
fi

check "eslint" npx --no-install eslint .
node_tests tests/unit/*.test.mjs
node_tests tests/browser/*.test.mjs
check "key latency benchmark ran" node tests/browser/latency.mjs

echo "web: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
