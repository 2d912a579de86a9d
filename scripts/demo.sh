#!/usr/bin/env bash
# The demo: the scenario API on 127.0.0.1:3031 and the app on http://127.0.0.1:8080/ (trunk
# serve, which proxies /api to the API). Ctrl-C stops both. Installs what is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"
cd "$root"

install_wasm_target
install_wasm_bindgen_cli
install_trunk
install_wasm_opt

say "building the scenario API"
cargo build --locked -p scenario-api
# A day at most; Ctrl-C stops it sooner.
start_scenario_api --port 3031 --stop-after 86400 --fixtures tests/fixtures/schedules.json \
  --fixtures tests/fixtures/bodies.json
trap 'kill "$SCENARIO_API_PID" 2>/dev/null || true' EXIT INT TERM
say "scenario API on $SCENARIO_API; the app will be at http://127.0.0.1:8080/"
trunk serve --offline
