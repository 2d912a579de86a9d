#!/usr/bin/env bash
# How the SSR example (examples/ssr) is built without cargo-leptos, as its README section says:
# the server natively with `ssr`, the lib for wasm32 with `hydrate` under the workspace's size
# profile, `wasm-bindgen --target web` into the site's pkg/, and the example's public files
# beside it. Sourced after scripts/install.sh (wasm-bindgen on PATH).

# The name HydrationScripts asks for: pkg/NAME.js and pkg/NAME_bg.wasm.
SSR_OUTPUT_NAME=palette_list_ssr

# Builds the server and the site into SITE; the server is target/debug/palette-list-ssr. From
# the source in TREE (the project's by default; the next Leptos line's copy, into the same
# target directory, in the `next` stage).
build_ssr_example() {
  local site="$1" tree="${2:-$root}"
  (
    cd "$tree"
    cargo build --locked -p palette-list-ssr --features ssr
    cargo build --locked -p palette-list-ssr --lib --target wasm32-unknown-unknown \
      --features hydrate --release
  )
  rm -rf "$site"
  mkdir -p "$site/pkg"
  cp "$tree"/examples/ssr/public/* "$site/"
  wasm-bindgen --target web --no-typescript --out-dir "$site/pkg" --out-name "$SSR_OUTPUT_NAME" \
    "$root/target/wasm32-unknown-unknown/release/$SSR_OUTPUT_NAME.wasm"
}

# A small run of the load bench's load against the SSR example (bench-load, built): 50 renders
# at once, then 50 over 2 s, against an API of 10 answers a second taking 20 ms each, the
# renders' scope limited to 2 requests in flight. Fails where a rule breaks: a render not
# answered 200 or held past 4.5 s (one attempt's 4 s cap), more than 2 requests at the API at
# once, or a request from the server during a block it knew of.
ssr_load_check() {
  local site="$1"
  "$root/target/debug/bench-load" --server "$root/target/debug/palette-list-ssr" --site "$site" \
    --check --limit 2 --allowance-ms 4500 --phase at-once:50 --phase over:50:2 \
    -- --quota 10 --window-s 1 --first-window open --api-latency-ms 20 --in-flight-limit 2
}

# The same API over three replicas of the example sharing their ledger through a redis-server
# (bench-load --replicas 3 --share): 200 renders at once never hold more than the scope's limit
# of 2 at the API, across all three. First 20 renders over 2 s: a Redis used for the first
# time gives no place for its first second (it cannot tell a first start from a restart), so
# the renders of that second let their reads go to the browser.
ssr_replicas_check() {
  local site="$1"
  "$root/target/debug/bench-load" --server "$root/target/debug/palette-list-ssr" --site "$site" \
    --replicas 3 --share --check --limit 2 --allowance-ms 4500 \
    --phase over:20:2 --phase at-once:200 \
    -- --quota 10 --window-s 1 --first-window open --api-latency-ms 20 --in-flight-limit 2
}
