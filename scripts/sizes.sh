#!/usr/bin/env bash
# How an app's download is measured, for scripts/bench.sh and the size gate in scripts/test.sh
# alike, and how the demo is built for the end-to-end tests: the steps `trunk build --release`
# takes for an app's trunk index.html, without trunk (cargo build --release for wasm32 under the
# workspace's size profile, wasm-bindgen --target web, wasm-opt -Oz; the page's CSS copied),
# then counted raw and gzip -9. `bash scripts/demo.sh` serves the same page with `trunk serve`.
# Sourced after scripts/install.sh (wasm-bindgen and wasm-opt on PATH).

# Builds the app of HTML (a trunk index.html: one `data-trunk rel="rust"` link with its
# manifest and `data-bin`, at most one `data-trunk rel="css"` link) into DIST, with an
# index.html that loads it; its log is DIST.log, shown on failure.
build_app() {
  local html="$1" dist="$2" dir rust manifest bin css
  dir="$(dirname "$html")"
  rust="$(grep -o '<link data-trunk rel="rust"[^>]*>' "$html")"
  manifest="$dir/$(printf '%s' "$rust" | sed -n 's/.*href="\([^"]*\)".*/\1/p')"
  bin="$(printf '%s' "$rust" | sed -n 's/.*data-bin="\([^"]*\)".*/\1/p')"
  css="$(grep -o '<link data-trunk rel="css" href="[^"]*"' "$html" | sed 's/.*href="\([^"]*\)"/\1/' || true)"
  [ -n "$bin" ] && [ -f "$manifest" ] || { echo "$html: no rust link with a manifest and data-bin" >&2; return 1; }
  rm -rf "$dist"
  mkdir -p "$dist"
  {
    cargo build --locked --release --target wasm32-unknown-unknown --manifest-path "$manifest" --bin "$bin" &&
      wasm-bindgen --target web --no-typescript --out-dir "$dist" --out-name "$bin" \
        "$root/target/wasm32-unknown-unknown/release/$bin.wasm" &&
      wasm-opt -Oz --output "$dist/${bin}_bg.opt.wasm" "$dist/${bin}_bg.wasm" &&
      mv "$dist/${bin}_bg.opt.wasm" "$dist/${bin}_bg.wasm"
  } >"$dist.log" 2>&1 || { cat "$dist.log" >&2; return 1; }
  local style="" loader
  if [ -n "$css" ]; then
    cp "$dir/$css" "$dist/$(basename "$css")"
    style="<link rel=\"stylesheet\" href=\"/$(basename "$css")\">"
  fi
  loader="<script type=\"module\">import init from '/$bin.js'; await init({ module_or_path: '/${bin}_bg.wasm' });</script>"
  # The page as trunk writes it: the rust link becomes the loader, the css link the stylesheet.
  awk -v rust="$rust" -v loader="$loader" -v style="$style" '
    index($0, "data-trunk rel=\"css\"") { sub(/<link data-trunk rel="css"[^>]*>/, style) }
    index($0, rust) { i = index($0, rust); $0 = substr($0, 1, i - 1) loader substr($0, i + length(rust)) }
    { print }
  ' "$html" >"$dist/index.html"
}

# One built app's bytes: "raw-wasm gz-wasm raw-js gz-js". Gzipped from standard input, so the
# count is the content's alone (gzip given a file writes its name into the header).
app_bytes() {
  local dir="$1" w j
  w="$(ls "$dir"/*.wasm)"
  j="$(ls "$dir"/*.js)"
  printf '%s %s %s %s\n' "$(wc -c <"$w")" "$(gzip -9 <"$w" | wc -c)" "$(wc -c <"$j")" "$(gzip -9 <"$j" | wc -c)"
}

# The size gate: builds the app of HTML into DIST and fails when its wasm + JS, gzipped, is more
# than 1 % above the number in CEILING_FILE, printing both. The ceiling is lowered in the commit
# that earns it.
size_gate() {
  local html="$1" ceiling_file="$2" dist="$3" wg jg ceiling limit
  build_app "$html" "$dist"
  read -r _ wg _ jg <<<"$(app_bytes "$dist")"
  ceiling="$(<"$ceiling_file")"
  limit=$((ceiling + ceiling / 100))
  printf '    %d bytes gzipped (wasm %d + JS %d); ceiling %d in %s, so at most %d\n' \
    $((wg + jg)) "$wg" "$jg" "$ceiling" "$ceiling_file" "$limit"
  if ((wg + jg > limit)); then
    echo "$((wg + jg - ceiling)) bytes over the ceiling: find them, or say in the commit that" \
      "raises $ceiling_file what they buy" >&2
    return 1
  fi
}

# What the screen costs a server-rendered app: builds the SSR pair (bench/ssr: the browser side,
# hydrate, of a start-axum app's routes, without and with one <PaletteList>) into DIR and prints
# "routes-gz screen-gz", each wasm + JS gzipped.
ssr_pair() {
  local dir="$1" wg jg routes screen
  build_app bench/ssr/routes.html "$dir/routes"
  read -r _ wg _ jg <<<"$(app_bytes "$dir/routes")"
  routes=$((wg + jg))
  build_app bench/ssr/screen.html "$dir/screen"
  read -r _ wg _ jg <<<"$(app_bytes "$dir/screen")"
  screen=$((wg + jg))
  printf '%s %s\n' "$routes" "$screen"
}

# The SSR size gate: fails when what the screen costs a server-rendered app (the SSR pair's
# difference, hand-over included) is more than 1 % above the number in CEILING_FILE.
ssr_gate() {
  local ceiling_file="$1" dir="$2" routes screen ceiling limit
  read -r routes screen <<<"$(ssr_pair "$dir")"
  ceiling="$(<"$ceiling_file")"
  limit=$((ceiling + ceiling / 100))
  printf '    the screen costs %d bytes gzipped (routes %d, with the screen %d); ceiling %d in %s, so at most %d\n' \
    $((screen - routes)) "$routes" "$screen" "$ceiling" "$ceiling_file" "$limit"
  if ((screen - routes > limit)); then
    echo "$((screen - routes - ceiling)) bytes over the ceiling: find them, or say in the commit" \
      "that raises $ceiling_file what they buy" >&2
    return 1
  fi
}

# The words only a server-rendered page can show (the server's refusals, `ServerRefusal`) are
# in the hydrating app's wasm in HYDRATING_DIR, so a search of a wasm finds them, and in no
# wasm of the CSR app in CSR_DIR: a CSR app pays nothing for them.
server_only_words() {
  local hydrating="$1" csr="$2" words
  for words in "the server refused to send it" "the server's hand-over cannot be read"; do
    if ! grep -qF "$words" "$hydrating"/*_bg.wasm; then
      echo "\"$words\" is not in $hydrating: the search cannot see a refusal's words" >&2
      return 1
    fi
    if grep -qF "$words" "$csr"/*_bg.wasm; then
      echo "\"$words\" is in the CSR app in $csr: it pays for a refusal it can never show" >&2
      return 1
    fi
  done
  echo "    neither refusal's words are in (b); both are in (e)"
}
