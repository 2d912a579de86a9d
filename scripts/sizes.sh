#!/usr/bin/env bash
# How an app's download is measured, for scripts/bench.sh and the size gate in scripts/test.sh
# alike: built by trunk in release (wasm-opt -Oz, the workspace's size profile), then counted
# raw and gzip -9. Sourced after scripts/install.sh (trunk and wasm-opt on PATH).

# Builds the app of HTML (a trunk index.html) into DIST; its log is DIST.log, shown on failure.
build_app() {
  local html="$1" dist="$2"
  trunk build --release --offline=true "$html" --dist "$dist" >"$dist.log" 2>&1 \
    || { cat "$dist.log" >&2; return 1; }
}

# One built app's bytes: "raw-wasm gz-wasm raw-js gz-js".
app_bytes() {
  local dir="$1" w j
  w="$(ls "$dir"/*.wasm)"
  j="$(ls "$dir"/*.js)"
  printf '%s %s %s %s\n' "$(wc -c <"$w")" "$(gzip -9c "$w" | wc -c)" "$(wc -c <"$j")" "$(gzip -9c "$j" | wc -c)"
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
