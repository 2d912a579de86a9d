#!/usr/bin/env bash
# How the SSR example (examples/ssr) is built without cargo-leptos, as its README section says:
# the server natively with `ssr`, the lib for wasm32 with `hydrate` under the workspace's size
# profile, `wasm-bindgen --target web` into the site's pkg/, and the example's public files
# beside it. Sourced after scripts/install.sh (wasm-bindgen on PATH).

# The name HydrationScripts asks for: pkg/NAME.js and pkg/NAME_bg.wasm.
SSR_OUTPUT_NAME=palette_list_ssr

# Builds the server and the site into SITE; the server is target/debug/palette-list-ssr.
build_ssr_example() {
  local site="$1"
  cargo build --locked -p palette-list-ssr --features ssr
  cargo build --locked -p palette-list-ssr --lib --target wasm32-unknown-unknown \
    --features hydrate --release
  rm -rf "$site"
  mkdir -p "$site/pkg"
  cp "$root"/examples/ssr/public/* "$site/"
  wasm-bindgen --target web --no-typescript --out-dir "$site/pkg" --out-name "$SSR_OUTPUT_NAME" \
    "$root/target/wasm32-unknown-unknown/release/$SSR_OUTPUT_NAME.wasm"
}
