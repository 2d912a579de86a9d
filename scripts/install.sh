#!/usr/bin/env bash
# Installs what this project needs on a bare machine, skipping whatever is already there.
# Sourced by scripts/test.sh and scripts/demo.sh. Everything comes from the package registries:
# rustup's wasm target, crates.io, Debian's packages.
set -euo pipefail

export PATH="$HOME/.cargo/bin:$PATH"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The wasm-bindgen version pinned in Cargo.lock; the CLI must match it exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock"
}

install_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  for c in rustfmt clippy; do
    rustup component list --installed | grep -q "^$c" || rustup component add "$c"
  done
}

install_wasm_bindgen_cli() {
  local want have
  want="$(wasm_bindgen_version)"
  [ -n "$want" ] || { echo "no wasm-bindgen in Cargo.lock" >&2; exit 1; }
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [ "$have" != "$want" ]; then
    say "installing wasm-bindgen-cli $want (found: ${have:-none}); a few minutes"
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
}

install_wasm_pack() {
  if ! command -v wasm-pack >/dev/null; then
    say "installing wasm-pack; a few minutes"
    cargo install --locked wasm-pack
  fi
}

install_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian's chromium and chromium-driver"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}
