#!/usr/bin/env bash
# Every check and every test; `bash scripts/test.sh STAGE…` runs only the stages named. The
# stages, in the order they run (each installs only what it needs, skipping what is there):
#   lint     cargo fmt --check; clippy -D warnings natively, for wasm32, and the SSR example in
#            both its modes; cargo doc -D warnings for every crate.
#   package  each library crate packaged and built from its package (cargo publish --dry-run, in
#            dependency order); what an embedder's tree holds in each rendering mode; the core's
#            tree holds no Leptos; an app pinned to another 0.2 wasm-bindgen resolves.
#   size     the size gates: the embed app (b), built as scripts/bench.sh builds it, within 1 % of
#            bench/embed/gzip-ceiling, and the screen in a server-rendered app within 1 % of
#            bench/ssr/gzip-ceiling.
#   core     cargo test natively: the core's rules, the model and every fixture, properties and
#            fuzzing, server-side rendering, the replay tool, the scenario API, the ledger shared
#            through a real redis-server, doc tests; the fleet in a release build; then
#            ../shared/fixtures, where it exists, as an outside cross-check.
#   wasm     the pure tests (the core, the model and its fixtures, the screen's units) once more
#            as wasm32, in headless Chromium.
#   browser  the browser suites (fetch and abort on the wire, timers, tabs, the DOM) in headless
#            Chromium and Firefox ESR at once, in real time against the scenario API on loopback.
#   e2e      the demo's release build and the SSR example (rendered by its server, hydrated,
#            under a strict CSP) driven in Chromium, with axe-core on every page they reach; the
#            SSR example's hydration, streamed and not, under a slow API in Firefox ESR.
#   next     the same source against the next Leptos line (0.9.0-rc1, scripts/leptos-next.sh):
#            the demo linted, the Leptos crates' native tests (the server's render, the ids a
#            hydrating page finds its parts by), with no warning in any build,
#            the SSR example built and its end-to-end tests run in Chromium and Firefox ESR.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"
source "$(dirname "${BASH_SOURCE[0]}")/sizes.sh"
source "$(dirname "${BASH_SOURCE[0]}")/ssr-example.sh"
source "$(dirname "${BASH_SOURCE[0]}")/leptos-next.sh"
cd "$root"

all_stages=(lint package size core wasm browser e2e next)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=("${all_stages[@]}")
for s in "${stages[@]}"; do
  case " ${all_stages[*]} " in
    *" $s "*) ;;
    *) echo "no stage named \"$s\"; the stages are: ${all_stages[*]}" >&2; exit 2 ;;
  esac
done
trap stop_scenario_api EXIT
# One build of everything, not an edit loop: rustc's incremental caches would add gigabytes to
# the target directory and save nothing.
export CARGO_INCREMENTAL=0

# A bare-machine run of every stage peaked at 3.9 GB in target/ and 0.45 GB under cargo's and
# npm's caches. Short of that, the build stops with "No space left on device" deep in a stage;
# this says so before it starts (a warm target needs less, so it is a warning, not a refusal).
free_kb="$(df -Pk "$root" | awk 'NR == 2 { print $4 }')"
if [ "${free_kb:-0}" -lt $((5 * 1024 * 1024)) ]; then
  echo "warning: $((free_kb / 1024)) MB free where the project is; a run from a fresh clone needs about 4.5 GB" >&2
fi

# The library crates, in dependency order.
libraries=(retry-budget retry-budget-tokio retry-budget-redis leptos-retry-budget palette-list)

stage_lint() {
  install_wasm_target
  say "cargo fmt --check"
  cargo fmt --all -- --check
  say "clippy (native)"
  cargo clippy --workspace --all-targets --locked -- -D warnings
  say "clippy (wasm32)"
  cargo clippy --workspace --exclude scenario-api --exclude retry-budget-tokio --exclude retry-budget-redis --exclude bench-load --exclude bench-peers --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
  say "clippy (the Leptos crate with ssr, its tests among it: a server's render reads)"
  cargo clippy --locked -p leptos-retry-budget --all-targets --features ssr -- -D warnings
  say "clippy (the SSR example: its server with ssr, its browser side with hydrate)"
  cargo clippy --locked -p palette-list-ssr --features ssr -- -D warnings
  cargo clippy --locked -p palette-list-ssr --lib --target wasm32-unknown-unknown --features hydrate -- -D warnings
  say "docs: every public item documented, no broken link"
  local p=()
  for c in "${libraries[@]}" palette-list-model palette-list-fleet; do p+=(-p "$c"); done
  RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --features retry-budget/json,retry-budget-tokio/middleware,retry-budget-tokio/tower "${p[@]}"
}

stage_package() {
  install_wasm_target
  say "each library crate as it would be published, built from its package, in dependency order"
  # `cargo publish --dry-run` packs a crate, then builds it from what it packed, resolving its
  # dependencies on this workspace's packed siblings (Cargo's multi-package publish).
  local p=()
  for c in "${libraries[@]}"; do p+=(-p "$c"); done
  # Cargo unpacks each packed sibling from a registry of its own, and keeps what it unpacked
  # (under CARGO_HOME) and what it built by version, as if a registry's crates never changed: an
  # earlier run's build of the same version would stand in for this one. So the unpacked copies
  # go (under registries named by a hash, `-…`), and the check builds in a target of its own.
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/{src,cache}/-*/{retry-budget,retry-budget-tokio,retry-budget-redis,leptos-retry-budget,palette-list}-[0-9]*
  # The packed crates build without the workspace's profiles, so their debug info is switched off
  # here; the check's target goes when it passes (nothing later reads it).
  rm -rf "$root/target/publish-check"
  CARGO_TARGET_DIR="$root/target/publish-check" CARGO_PROFILE_DEV_DEBUG=false \
    cargo publish --dry-run --locked --allow-dirty "${p[@]}"
  rm -rf "$root/target/publish-check"
  for c in "${libraries[@]}"; do
    local packaged
    packaged="$(cargo package --list --locked --allow-dirty -p "$c")"
    printf '    %s: %s\n' "$c" "$(printf '%s\n' "$packaged" | tr '\n' ' ')"
    if printf '%s\n' "$packaged" | grep -Ev '^(\.cargo_vcs_info\.json|Cargo\.toml(\.orig)?|Cargo\.lock|build\.rs|README\.md|LICENSE-(MIT|APACHE)|docs/contract\.md|src/.*\.rs|examples/.*\.rs)$'; then
      echo "the package of $c holds files its users do not need (above)" >&2
      exit 1
    fi
    printf '%s\n' "$packaged" | grep -qx LICENSE-MIT && printf '%s\n' "$packaged" | grep -qx LICENSE-APACHE \
      || { echo "the package of $c has no licence file" >&2; exit 1; }
  done

  say "the core's dependency tree holds no Leptos and no browser"
  local tree
  tree="$(cargo tree --locked -p retry-budget -e normal --features json --prefix none)"
  if printf '%s\n' "$tree" | grep -E '^(leptos|web-sys|js-sys|wasm-bindgen|gloo)'; then
    echo "retry-budget pulls in the crates above" >&2
    exit 1
  fi
  echo "    retry-budget: $(printf '%s\n' "$tree" | sort -u | tr '\n' ' ')"
  for c in palette-list-model palette-list-fleet scenario-api; do
    if cargo tree --locked -p "$c" -e normal --prefix none | grep -E '^leptos'; then
      echo "$c pulls in Leptos (above); it needs the core alone" >&2
      exit 1
    fi
  done
  echo "    the model, the fleet and the scenario API: the core alone, no Leptos"

  say "an embedder's dependency tree, in every rendering mode: the library's alone"
  # The server's reads (ssr) bring tokio and reqwest (and reqwest's hyper); the browser's never.
  local forbidden
  for mode in "csr --target wasm32-unknown-unknown" "hydrate --target wasm32-unknown-unknown" "ssr"; do
    forbidden='leptos_router|axum|palette-list-model|palette-list-demo|scenario-api'
    [ "$mode" = ssr ] || forbidden="$forbidden|tokio|hyper|reqwest|retry-budget-tokio|redis"
    # shellcheck disable=SC2086
    tree="$(cargo tree --locked -p palette-list -e normal --prefix none -F $mode)"
    if printf '%s\n' "$tree" | grep -E "^($forbidden) "; then
      echo "palette-list with $mode pulls in the crates above" >&2
      exit 1
    fi
    echo "    $mode: $(printf '%s\n' "$tree" | sort -u | wc -l) crates, none of the demo's or the tests'"
  done

  say "an app pinned to another wasm-bindgen (=0.2.129, as start-axum pins it) resolves with the libraries"
  local app="$root/target/pinned-app"
  rm -rf "$app"
  mkdir -p "$app/src"
  cat >"$app/Cargo.toml" <<TOML
[package]
name = "pinned-app"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
palette-list = { path = "$root/crates/palette-list", features = ["hydrate"] }
wasm-bindgen = "=0.2.129"
TOML
  echo 'fn main() {}' >"$app/src/main.rs"
  cargo generate-lockfile --quiet --manifest-path "$app/Cargo.toml"
  grep -A1 '^name = "wasm-bindgen"$' "$app/Cargo.lock" | sed -n 2p | sed 's/^/    resolved: wasm-bindgen /'
}

stage_size() {
  install_wasm_target
  install_wasm_bindgen_cli
  install_wasm_opt
  say "size gate: the embed app (b) within 1 % of bench/embed/gzip-ceiling"
  size_gate bench/embed/index.html bench/embed/gzip-ceiling "$root/target/size-gate"
  say "size gate: what the screen costs a server-rendered app (bench/ssr) within 1 % of bench/ssr/gzip-ceiling"
  ssr_gate bench/ssr/gzip-ceiling "$root/target/size-gate-ssr"
  say "the server's refusals are in the hydrating app (e) and nowhere in the CSR app (b)"
  server_only_words "$root/target/size-gate-ssr/screen" "$root/target/size-gate"
}

stage_core() {
  install_redis
  say "cargo test (natively; the shared ledger's tests start redis-server processes of their own)"
  cargo test --workspace --locked --exclude palette-list-fleet
  say "the Leptos crate with ssr: a render that reads from an API on loopback, and what it writes for the browser read back"
  cargo test --locked -p leptos-retry-budget --features ssr
  say "the fleet's tests in a release build (twelve sections; the setting for a shared quota on seeds 1 to 8)"
  cargo test --locked --release -p palette-list-fleet
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
}

# Runs `cargo test` for wasm32 in the browser whose driver is in DRIVER_VAR (CHROMEDRIVER or
# GECKODRIVER), through wasm-bindgen's test runner; the remaining arguments go to cargo.
wasm_test_in() {
  local driver_var="$1" driver="$2"
  shift 2
  env "$driver_var=$driver" \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    WASM_BINDGEN_TEST_WEBDRIVER_JSON="$root/webdriver.json" \
    cargo test --locked --target wasm32-unknown-unknown "$@"
}

stage_wasm() {
  install_wasm_target
  install_wasm_bindgen_cli
  install_chromium
  say "the pure tests as wasm32, once, in headless Chromium"
  wasm_test_in CHROMEDRIVER "$(command -v chromedriver)" \
    -p retry-budget -p palette-list-model -p leptos-retry-budget -p palette-list --lib --tests
}

stage_browser() {
  install_wasm_target
  install_wasm_bindgen_cli
  install_chromium
  install_firefox
  say "the browser suites in headless Chromium and Firefox (ESR) at once, against the scenario API"
  cargo build --locked -p scenario-api
  start_scenario_api --port 0 --stop-after 2400 --fixtures tests/fixtures/schedules.json \
    --fixtures tests/fixtures/edge-cases.json --fixtures tests/fixtures/written-elsewhere.json \
    --fixtures tests/fixtures/bodies.json
  # Built once (the API's URL is baked in at compile time), then run in both browsers at once:
  # the suites wait on real clocks far more than they compute, and every test reads runs and
  # limits of its own on the API, so neither browser's tests meet the other's.
  local suite
  suite="$(cargo test --locked --target wasm32-unknown-unknown -p palette-list-tests --test browser \
    --no-run --message-format=json | sed -n 's/.*"executable":"\([^"]*browser-[^"]*\.wasm\)".*/\1/p')"
  [ -f "$suite" ] || { echo "the browser suites did not build" >&2; exit 1; }
  local logs="$root/target/browser-suites" chrome firefox failed=0
  mkdir -p "$logs"
  env CHROMEDRIVER="$(command -v chromedriver)" WASM_BINDGEN_TEST_TIMEOUT=1200 \
    WASM_BINDGEN_TEST_WEBDRIVER_JSON="$root/webdriver.json" \
    wasm-bindgen-test-runner "$suite" >"$logs/chromium.log" 2>&1 &
  chrome=$!
  env GECKODRIVER="$(command -v geckodriver)" WASM_BINDGEN_TEST_TIMEOUT=1200 \
    WASM_BINDGEN_TEST_WEBDRIVER_JSON="$root/webdriver.json" \
    wasm-bindgen-test-runner "$suite" >"$logs/firefox.log" 2>&1 &
  firefox=$!
  wait "$chrome" || failed=1
  say "the browser suites in headless Chromium:"
  cat "$logs/chromium.log"
  wait "$firefox" || failed=1
  say "the browser suites in headless Firefox (ESR):"
  cat "$logs/firefox.log"
  stop_scenario_api
  [ "$failed" = 0 ] || { echo "the browser suites failed (above)" >&2; exit 1; }
}

stage_e2e() {
  install_wasm_target
  install_wasm_bindgen_cli
  install_chromium
  install_wasm_opt
  install_playwright
  install_axe
  install_firefox_esr
  install_puppeteer
  install_redis
  say "end to end: the demo's release build, and the SSR example (server + hydrate), in Chromium and (its hydration under a slow API) Firefox ESR; three replicas of it sharing a ledger through redis-server"
  build_app index.html "$root/dist"
  build_ssr_example "$root/target/ssr-site"
  cargo build --locked -p scenario-api
  start_scenario_api --port 0 --stop-after 600 --static dist --fixtures tests/fixtures/schedules.json \
    --fixtures tests/fixtures/bodies.json
  E2E_URL="$SCENARIO_API" E2E_SHOTS="$root/target/screenshots" \
    SSR_SERVER="$root/target/debug/palette-list-ssr" SSR_SITE="$root/target/ssr-site" \
    SSR_OUTPUT_NAME="$SSR_OUTPUT_NAME" node --test tests/e2e/
  stop_scenario_api
  say "the SSR example under a small load (100 renders, bench-load): the one ledger's rules hold"
  cargo build --locked --quiet -p bench-load
  ssr_load_check "$root/target/ssr-site"
  say "three replicas of it sharing their ledger through redis-server: 200 renders at once hold no more than the scope's limit at the API"
  ssr_replicas_check "$root/target/ssr-site"
}

stage_next() {
  install_wasm_target
  install_wasm_bindgen_cli
  install_chromium
  install_playwright
  install_axe
  install_firefox_esr
  install_puppeteer
  local tree="$root/target/leptos-next/src" site="$root/target/leptos-next/ssr-site"
  say "the next Leptos ($LEPTOS_NEXT): the same source, its manifests asking for it"
  make_leptos_next_tree "$tree"
  # Into the project's target directory: every crate but Leptos's and this workspace's is the
  # one the other stages built. The demo is linted (a CSR app: the libraries in that mode with
  # it); the server and hydrating builds are the tests' and the example's own, one build of
  # Leptos each and no second check of it, so a warning in them fails the stage as clippy's
  # would (cargo shows warnings for this workspace's crates only).
  (
    export CARGO_TARGET_DIR="$root/target"
    cd "$tree"
    cargo update --quiet -p leptos -p hydration_context
    cargo clippy --locked -p palette-list-demo --target wasm32-unknown-unknown -- -D warnings
    cargo test --locked -p leptos-retry-budget --features ssr
    cargo test --locked -p palette-list
    build_ssr_example "$site" "$tree"
  ) 2>&1 | tee "$root/target/leptos-next/build.log"
  if grep -n -A6 '^warning' "$root/target/leptos-next/build.log"; then
    echo "the workspace against Leptos $LEPTOS_NEXT builds with warnings (above)" >&2
    return 1
  fi
  # The server out of the shared target directory, which the project's own build takes back.
  cp "$root/target/debug/palette-list-ssr" "$root/target/leptos-next/palette-list-ssr"
  SSR_SERVER="$root/target/leptos-next/palette-list-ssr" SSR_SITE="$site" \
    SSR_OUTPUT_NAME="$SSR_OUTPUT_NAME" E2E_SHOTS="$root/target/leptos-next/screenshots" \
    node --test tests/e2e/ssr.test.mjs tests/e2e/firefox.test.mjs
}

for s in "${stages[@]}"; do
  started=$SECONDS
  "stage_$s"
  say "stage $s passed in $((SECONDS - started)) s"
done
say "all checks passed: ${stages[*]}"
