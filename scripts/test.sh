#!/usr/bin/env bash
# Every check and every test: formatting, clippy (native and wasm), cargo test (unit, fixture,
# property, CLI and doc tests), then the same core and fixture tests inside WebAssembly in
# headless Chromium. Installs what is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"
cd "$root"

if [ ! -f ../shared/fixtures/schedules.json ]; then
  echo "../shared/fixtures/schedules.json is missing: the tests read the contract's fixtures from the project root's sibling shared/" >&2
  exit 1
fi

install_wasm_target
install_wasm_bindgen_cli
install_wasm_pack
install_chromium

say "cargo fmt --check"
cargo fmt --all -- --check
say "clippy (native)"
cargo clippy --workspace --all-targets --locked -- -D warnings
say "clippy (wasm32)"
cargo clippy -p palette-list --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
say "cargo test"
cargo test --workspace --locked
say "wasm tests in headless Chromium"
wasm-pack test --headless --chrome -- --locked
say "all checks passed"
