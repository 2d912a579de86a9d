#!/usr/bin/env bash
# The same source against the next Leptos line: a copy of the working tree whose manifests ask
# for Leptos 0.9.0-rc1 (leptos, leptos_router, leptos_axum, leptos_meta) and its
# hydration_context where they ask for 0.8 and 0.3, and nothing else changed. The library's
# build.rs reads the line from that requirement. Sourced by scripts/test.sh.

LEPTOS_NEXT=0.9.0-rc1
HYDRATION_CONTEXT_NEXT=0.4.0-rc1

# Copies the working tree (not target/, node_modules/ or .git/) into DIR and rewrites its
# manifests; fails, naming the manifest, where a Leptos requirement is not the one expected.
make_leptos_next_tree() {
  local dir="$1" manifest
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -C "$root" --exclude=./target --exclude=./node_modules --exclude=./.git -cf - . |
    tar -C "$dir" -xf -
  while IFS= read -r manifest; do
    sed -i -E \
      -e 's/^(leptos(_router|_axum|_meta)? = (\{ version = )?)"0\.8"/\1"='"$LEPTOS_NEXT"'"/' \
      -e 's/^(hydration_context = )"0\.3"/\1"='"$HYDRATION_CONTEXT_NEXT"'"/' "$manifest"
    if grep -En '^(leptos(_router|_axum|_meta)?|hydration_context) = .*"0\.[0-9]' "$manifest" |
      grep -v "=$LEPTOS_NEXT\|=$HYDRATION_CONTEXT_NEXT"; then
      echo "$manifest: a Leptos requirement the next-line copy does not rewrite (above)" >&2
      return 1
    fi
  done < <(find "$dir" -name Cargo.toml)
}
