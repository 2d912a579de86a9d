#!/usr/bin/env bash
# The demo: replays the contract's worked cases through the budget core and prints each
# timeline and what the user sees. (The browser screen arrives with the Leptos components.)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/install.sh"
cd "$root"
exec cargo run --release --locked --bin replay -- ../shared/fixtures/schedules.json
