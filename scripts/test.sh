#!/usr/bin/env bash
# Every check and every test, in this order: formatting; clippy natively and for wasm32; the
# crate's docs and what it packages; what an embedder's dependency tree holds; the size gate
# (the embed app (b), built as scripts/bench.sh builds it, within 1 % of its ceiling); cargo test
# (core, model, fixtures, properties, server-side rendering, the replay tool, the scenario API,
# doc tests); the outside fixtures, where ../shared/fixtures exists; the wasm tests in headless
# Chromium (core and fixtures, then the runtime and components in real time against the
# scenario API), then the same in headless Firefox; then the end-to-end tests of the demo's
# release build and of the SSR example (rendered by its server, hydrated, under a strict CSP),
# with axe-core on every page they reach. Installs what is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"
source "$(dirname "${BASH_SOURCE[0]}")/sizes.sh"
source "$(dirname "${BASH_SOURCE[0]}")/ssr-example.sh"
cd "$root"

install_wasm_target
install_wasm_bindgen_cli
install_wasm_pack
install_chromium
install_firefox
install_trunk
install_wasm_opt
install_playwright
install_axe
trap stop_scenario_api EXIT

say "cargo fmt --check"
cargo fmt --all -- --check
say "clippy (native)"
cargo clippy --workspace --all-targets --locked -- -D warnings
say "clippy (wasm32)"
cargo clippy --workspace --exclude scenario-api --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
say "clippy (the SSR example: its server with ssr, its browser side with hydrate)"
cargo clippy --locked -p palette-list-ssr --features ssr -- -D warnings
cargo clippy --locked -p palette-list-ssr --lib --target wasm32-unknown-unknown --features hydrate -- -D warnings

say "docs: every public item documented, no broken link"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked -p palette-list -p palette-list-model -p palette-list-fleet
say "the package holds only what an embedder needs"
packaged="$(cargo package --list --locked --allow-dirty -p palette-list)"
printf '%s\n' "$packaged" | sed 's/^/    /'
if printf '%s\n' "$packaged" | grep -Ev '^(\.cargo_vcs_info\.json|Cargo\.toml(\.orig)?|Cargo\.lock|README\.md|docs/contract\.md|src/.*\.rs)$'; then
  echo "the package holds files an embedder does not need (above)" >&2
  exit 1
fi
say "an embedder's dependency tree, in every rendering mode: the library's alone"
for mode in "csr --target wasm32-unknown-unknown" "hydrate --target wasm32-unknown-unknown" "ssr"; do
  # shellcheck disable=SC2086
  tree="$(cargo tree --locked -p palette-list -e normal --prefix none -F $mode)"
  if printf '%s\n' "$tree" | grep -E '^(leptos_router|axum|tokio|hyper|palette-list-model|palette-list-demo|scenario-api) '; then
    echo "palette-list with $mode pulls in the crates above" >&2
    exit 1
  fi
  echo "    $mode: $(printf '%s\n' "$tree" | sort -u | wc -l) crates, none of the demo's or the tests'"
done

say "size gate: the embed app (b) within 1 % of bench/embed/gzip-ceiling"
size_gate bench/embed/index.html bench/embed/gzip-ceiling "$root/target/size-gate"

say "cargo test"
cargo test --workspace --locked

if compgen -G "../shared/fixtures/*.json" >/dev/null; then
  say "cross-check: the contract's own fixture files replay"
  cargo build --locked -p palette-list-model --bin replay
  for f in ../shared/fixtures/*.json; do
    if ! out="$(target/debug/replay "$f")"; then
      printf '%s\n' "$out"
      echo "$f does not replay as its expect blocks say" >&2
      exit 1
    fi
    echo "    $f: $(printf '%s\n' "$out" | tail -n 1)"
  done
else
  say "no ../shared/fixtures beside the project: the outside cross-check is skipped"
fi

say "wasm tests in headless Chromium, against the scenario API"
cargo build --locked -p scenario-api
start_scenario_api --port 0 --stop-after 2400 --fixtures tests/fixtures/schedules.json \
  --fixtures tests/fixtures/edge-cases.json --fixtures tests/fixtures/written-elsewhere.json \
  --fixtures tests/fixtures/bodies.json
# The URL is baked into the browser tests at compile time; the real-time sweep takes minutes.
WASM_BINDGEN_TEST_TIMEOUT=1200 wasm-pack test --headless --chrome -- --locked
say "the same wasm tests in headless Firefox (ESR), against the same scenario API"
WASM_BINDGEN_TEST_TIMEOUT=1200 wasm-pack test --headless --firefox -- --locked
stop_scenario_api

say "end to end: the demo's release build, and the SSR example (server + hydrate), in Chromium"
trunk build --release --offline
build_ssr_example "$root/target/ssr-site"
start_scenario_api --port 0 --stop-after 600 --static dist --fixtures tests/fixtures/schedules.json \
  --fixtures tests/fixtures/bodies.json
E2E_URL="$SCENARIO_API" E2E_SHOTS="$root/target/screenshots" \
  SSR_SERVER="$root/target/debug/palette-list-ssr" SSR_SITE="$root/target/ssr-site" \
  SSR_OUTPUT_NAME="$SSR_OUTPUT_NAME" node --test tests/e2e/
stop_scenario_api
say "all checks passed"
