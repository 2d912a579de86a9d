//! The demo's first page: several Palette List screens on one rate-limited API (a real
//! fixed-window limiter on the scenario API), with what the server counted beside what the
//! page's scope ledger knows.

use crate::live::{self, LimitedRequest};
use gloo_timers::callback::Interval;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_retry_budget::runtime::{now, provide_scope_policy, scope_state};
use leptos_router::hooks::{use_navigate, use_query_map};
use leptos_router::NavigateOptions;
use palette_list::PaletteList;
use retry_budget::scope::BlockCause;
use retry_budget::words::{seconds_text, Precision};
use retry_budget::{RetryPolicy, ScopePolicy};
use send_wrapper::SendWrapper;

/// The limit every screen here shares: 3 requests per 10 s window, each answer held 300 ms as
/// a slow API holds it (so that requests overlap, and a queue shows).
const LIMIT: &str = "quota=3&window_s=10&answer_ms=300";

/// The rate limit the screens share, by name: every screen here, in every tab.
const SCOPE: &str = "palettes-api";

/// The scope of the screens added "one at a time": the same API, with at most one request in
/// flight. A scope's policy is the scope's, so these screens have a scope of their own.
const ONE_AT_A_TIME: &str = "palettes-api:one-at-a-time";

/// The scope a screen added now joins.
fn scope(one_at_a_time: bool) -> &'static str {
    if one_at_a_time {
        ONE_AT_A_TIME
    } else {
        SCOPE
    }
}

/// The policy of every screen here: the default budget, up to 20 % jitter on the waits the
/// client chooses, and its scope.
fn policy(one_at_a_time: bool) -> RetryPolicy {
    RetryPolicy::new()
        .with_jitter(20)
        .with_scope(scope(one_at_a_time))
}

/// The page: the limit it reads (`?limit=ID` to share one with another tab; else a new one,
/// put in the address so a second tab can open the same), and the screens it opens with
/// (`?screens=coast,dune`; default one coast, and `?screens=` none).
#[component]
pub fn SharedApiPage() -> impl IntoView {
    let api = super::api();
    let query = use_query_map().get_untracked();
    let asked = query.get("limit");
    let first: Vec<String> = match query.get("screens") {
        None => vec!["coast".to_owned()],
        Some(list) => list
            .split(',')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect(),
    };
    let first = StoredValue::new(first);
    let limit = RwSignal::new(None::<Result<String, String>>);
    let navigate = SendWrapper::new(use_navigate());
    spawn_local(async move {
        let found = match asked {
            Some(id) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(format!("{api}/limits/{id}"))
            }
            Some(id) => Err(format!("limit={id:?} is not a limit number")),
            None => live::new_limit(&api, LIMIT)
                .await
                .map_err(|e| e.to_string())
                .inspect(|base| {
                    let id = base.rsplit('/').next().unwrap_or_default();
                    let options = NavigateOptions {
                        replace: true,
                        ..Default::default()
                    };
                    navigate(&format!("/?limit={id}"), options);
                }),
        };
        limit.try_set(Some(found));
    });
    move || match limit.get() {
        None => {
            view! { <p class="notice">"Making a rate limit on the scenario API…"</p> }.into_any()
        }
        Some(Err(e)) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
        Some(Ok(base)) => view! { <SharedApi base first=first.get_value() /> }.into_any(),
    }
}

/// The screens, the controls that mount them, and the two counts.
#[component]
fn SharedApi(
    /// The limit's URL prefix.
    base: String,
    /// The collections of the screens it opens with.
    first: Vec<String>,
) -> impl IntoView {
    // Given once for the page (the same policy again, on coming back, changes nothing).
    if let Err(e) = provide_scope_policy(ONE_AT_A_TIME, ScopePolicy::new().with_in_flight_limit(1))
    {
        leptos::logging::error!("{e}");
    }
    // Each screen: its id, its collection, and whether it was opened one at a time.
    let screens = RwSignal::new(Vec::<(u64, String, bool)>::new());
    let next = StoredValue::new(1u64);
    let one_at_a_time = RwSignal::new(false);
    let add = move |collections: &[&str]| {
        let one = one_at_a_time.get_untracked();
        screens.update(|s| {
            for c in collections {
                let id = next.get_value();
                next.set_value(id + 1);
                s.push((id, (*c).to_owned(), one));
            }
        })
    };
    add(&first.iter().map(String::as_str).collect::<Vec<_>>());
    let server = RwSignal::new(Vec::<LimitedRequest>::new());
    let clock = RwSignal::new(now());
    let poll_base = base.clone();
    let poller = SendWrapper::new(Interval::new(250, move || {
        clock.try_set(now());
        let base = poll_base.clone();
        spawn_local(async move {
            if let Ok(seen) = live::limit_requests(&base).await {
                server.try_set(seen);
            }
        });
    }));
    on_cleanup(move || drop(poller));

    let server_count = move || {
        let seen = server.get();
        let refused = seen.iter().filter(|r| r.status == 429).count();
        format!(
            "{} requests reached the API: {} admitted, {refused} refused.",
            seen.len(),
            seen.len() - refused
        )
    };
    let server_in_flight = move || {
        let most = server.with(|seen| seen.iter().map(|r| r.in_flight).max().unwrap_or(0));
        format!("Most in flight at the API at once: {most}.")
    };
    // Read once a tick, for the lines that show it.
    let ledger = Memo::new(move |_| {
        let at = clock.get();
        let state = scope_state(scope(one_at_a_time.get()));
        let next = match state.block.filter(|b| b.until > at) {
            Some(b) => format!(
                "Next request allowed in {} s ({}).",
                seconds_text(b.until - at, Precision::Tenths),
                match b.cause {
                    BlockCause::TooManyRequests => "a 429's Retry-After",
                    BlockCause::QuotaSpent => "the quota's reset",
                }
            ),
            None => "Requests allowed now.".to_owned(),
        };
        let remaining = match state.remaining {
            Some(n) => format!("Quota left: {n}."),
            None => "Quota left: not said yet.".to_owned(),
        };
        let in_flight = format!("In flight: {}; queued: {}.", state.in_flight, state.queued);
        (
            next,
            remaining,
            format!("429s seen: {}.", state.refusals),
            in_flight,
        )
    });
    let base_for_lists = StoredValue::new(base);
    view! {
        <div class="screen shared-api">
            <h1>"Shared API"</h1>
            <p class="notice">
                "One API, three requests per 10-second window, shared by every screen here (and "
                "by this page in another tab). Mount a few and watch the page hold back."
            </p>
            <div class="controls">
                <button data-testid="add-coast" on:click=move |_| add(&["coast"])>"+ coast"</button>
                <button data-testid="add-different" on:click=move |_| add(&["harbour", "dune"])>
                    "+ harbour and dune"
                </button>
                <button data-testid="add-five" on:click=move |_| add(&["coast"; 5])>"+ five coast"</button>
                <button data-testid="remove-all" on:click=move |_| screens.set(Vec::new())>
                    "Remove all"
                </button>
                <label>
                    <input
                        type="checkbox"
                        data-testid="one-at-a-time"
                        prop:checked=move || one_at_a_time.get()
                        on:change=move |_| one_at_a_time.update(|on| *on = !*on)
                    />
                    " Screens added now: one request in flight at a time (a scope of their own)"
                </label>
            </div>
            <aside class="counts">
                <p data-testid="ledger-scope">
                    {move || format!("The page's ledger of {}:", scope(one_at_a_time.get()))}
                </p>
                <p data-testid="server-count">{server_count}</p>
                <p data-testid="ledger-next">{move || ledger.with(|l| l.0.clone())}</p>
                <p data-testid="ledger-remaining">{move || ledger.with(|l| l.1.clone())}</p>
                <p data-testid="ledger-refusals">{move || ledger.with(|l| l.2.clone())}</p>
                <p data-testid="ledger-in-flight">{move || ledger.with(|l| l.3.clone())}</p>
                <p data-testid="server-in-flight">{server_in_flight}</p>
            </aside>
            <div class="lists">
                <For each=move || screens.get() key=|(id, ..)| *id let((id, collection, one))>
                    <div class="shared-screen" data-testid="shared-screen">
                        <PaletteList
                            collection
                            api_base=base_for_lists.get_value()
                            policy=policy(one)
                        />
                        <button
                            class="remove"
                            on:click=move |_| screens.update(|s| s.retain(|(i, ..)| *i != id))
                        >
                            "Remove"
                        </button>
                    </div>
                </For>
            </div>
        </div>
    }
}
