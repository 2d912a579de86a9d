#!/usr/bin/env bash
# Installs what this project needs on a bare machine, skipping whatever is already there.
# Sourced by scripts/test.sh and scripts/demo.sh. Everything comes from the package registries:
# rustup's wasm target, crates.io, Debian's packages.
set -euo pipefail

export PATH="$HOME/.cargo/bin:$PATH"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '==> [%d s] %s\n' "$SECONDS" "$*"; }

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

install_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian's chromium and chromium-driver"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

# Debian's redis-server, for the tests of a ledger shared between processes. The tests start
# their own on a free loopback port and stop it; the package's own service is not needed.
install_redis() {
  if ! command -v redis-server >/dev/null; then
    say "installing Debian's redis-server"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  fi
}

# Debian's Firefox ESR, for the browser suites and the SSR example's end-to-end tests.
install_firefox_esr() {
  if ! command -v firefox-esr >/dev/null && ! command -v firefox >/dev/null; then
    say "installing Debian's firefox-esr"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq firefox-esr >/dev/null
  fi
}

# Firefox ESR, and geckodriver from crates.io (built once), for the same browser tests.
install_firefox() {
  install_firefox_esr
  if ! geckodriver --version 2>/dev/null | grep -q '^geckodriver 0.37.1'; then
    say "installing geckodriver 0.37.1; a few minutes"
    cargo install --locked geckodriver@0.37.1 --force
  fi
}

install_trunk() {
  if ! trunk --version 2>/dev/null | grep -qx 'trunk 0.21.14'; then
    say "installing trunk 0.21.14 (0.22 needs a newer rustc); about ten minutes"
    cargo install --locked trunk@0.21.14 --force
  fi
}

# wasm-opt from npm's binaryen 132, kept under target/tools (Debian's binaryen 108 produces a
# wasm that fails to load). Puts it on PATH for scripts/sizes.sh and for trunk.
install_wasm_opt() {
  local bin="$root/target/tools/node_modules/.bin"
  if ! "$bin/wasm-opt" --version 2>/dev/null | grep -q 'version 132'; then
    command -v npm >/dev/null || { echo "npm is needed for binaryen's wasm-opt" >&2; exit 1; }
    say "installing wasm-opt (npm binaryen@132)"
    mkdir -p "$root/target/tools"
    npm install --prefix "$root/target/tools" --no-audit --no-fund --silent binaryen@132.0.0
  fi
  export PATH="$bin:$PATH"
}

# Installs npm package NAME at VERSION under target/tools unless that version is there, and
# exports its folder as VAR.
install_npm_package() {
  local name="$1" version="$2" var="$3"
  local dir="$root/target/tools/node_modules/$name"
  if ! grep -q "\"version\": \"$version\"" "$dir/package.json" 2>/dev/null; then
    say "installing $name $version"
    mkdir -p "$root/target/tools"
    npm install --prefix "$root/target/tools" --no-audit --no-fund --silent "$name@$version"
  fi
  export "$var=$dir"
}

# playwright-core for the end-to-end test (it drives Debian's chromium; it downloads no browser).
install_playwright() {
  install_npm_package playwright-core 1.65.1 PLAYWRIGHT_CORE
}

# puppeteer-core for the SSR example's end-to-end tests in Firefox ESR, over WebDriver BiDi (it
# downloads no browser).
install_puppeteer() {
  install_npm_package puppeteer-core 25.16.0 PUPPETEER_CORE
}

# axe-core for the end-to-end tests' accessibility checks (evaluated in the page by playwright).
install_axe() {
  install_npm_package axe-core 4.14.1 AXE_CORE
}

# Starts the scenario API in the background with the given arguments (add --port, --fixtures,
# --static, --stop-after: it should stop by itself). Waits until it listens; sets SCENARIO_API
# to its URL and SCENARIO_API_PID.
start_scenario_api() {
  local log
  log="$(mktemp)"
  "$root/target/debug/scenario-api" "$@" >"$log" 2>&1 &
  SCENARIO_API_PID=$!
  SCENARIO_API=""
  for _ in $(seq 1 100); do
    SCENARIO_API="$(grep -o 'http://127.0.0.1:[0-9]*' "$log" || true)"
    [ -n "$SCENARIO_API" ] && break
    kill -0 "$SCENARIO_API_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$SCENARIO_API" ]; then
    cat "$log" >&2
    echo "the scenario API did not start" >&2
    exit 1
  fi
  export SCENARIO_API SCENARIO_API_PID
}

stop_scenario_api() {
  if [ -n "${SCENARIO_API_PID:-}" ]; then
    kill "$SCENARIO_API_PID" 2>/dev/null || true
    wait "$SCENARIO_API_PID" 2>/dev/null || true
    SCENARIO_API_PID=""
  fi
}
