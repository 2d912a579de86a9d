#!/usr/bin/env bash
# Every check and every test, in this order: formatting; clippy natively and for wasm32;
# cargo test (core, model, fixtures, properties, the replay tool, the scenario API, doc tests);
# the wasm tests in headless Chromium (core and fixtures, then the runtime and components in real
# time against the scenario API); then the end-to-end test of the release build. Installs what is
# missing first.
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
install_trunk
install_wasm_opt
install_playwright
trap stop_scenario_api EXIT

say "cargo fmt --check"
cargo fmt --all -- --check
say "clippy (native)"
cargo clippy --workspace --all-targets --locked -- -D warnings
say "clippy (wasm32)"
cargo clippy -p palette-list --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
say "cargo test"
cargo test --workspace --locked

say "wasm tests in headless Chromium, against the scenario API"
cargo build --locked -p scenario-api
start_scenario_api --port 0 --stop-after 1200 \
  --fixtures ../shared/fixtures/schedules.json --fixtures tests/fixtures/edge-cases.json
# The URL is baked into the browser tests at compile time; the real-time sweep takes minutes.
WASM_BINDGEN_TEST_TIMEOUT=1200 wasm-pack test --headless --chrome -- --locked
stop_scenario_api

say "end to end: the release build in Chromium"
trunk build --release --offline
start_scenario_api --port 0 --stop-after 600 --static dist --fixtures ../shared/fixtures/schedules.json
E2E_URL="$SCENARIO_API" E2E_SHOTS="$root/target/screenshots" node --test tests/e2e/
stop_scenario_api
say "all checks passed"
