//! The demo app: several Palette List screens on one rate-limited API (the first page), one
//! screen on a scenario the user picks, and a scenarios page that plays each fixture case
//! against the scenario API with the client's trace and the server's requests side by side.
//! Real routes, so leaving is real navigation. Client-side rendered (leptos `csr`), browser
//! only.
#![cfg(target_arch = "wasm32")]

pub mod live;
mod shared_api;

use std::time::Duration;

use crate::live::ServerRequest;
use gloo_timers::callback::Interval;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::hooks::use_query_map;
use leptos_router::path;
use palette_list::palettes::{palettes_url, PaletteCollection};
use palette_list::{use_budgeted_read, PaletteListView, ReadRequest, TracePanel};
use palette_list_model::{Case, Fixture};
use retry_budget::words::{seconds_text, Precision};
use retry_budget::RetryPolicy;
use send_wrapper::SendWrapper;
use serde_json::Value;

/// The demo app, with its routes. The scenario API is at `api` (default `/api`, which
/// `Trunk.toml` proxies to the scenario API on 127.0.0.1:3031).
#[component]
pub fn App(
    /// The scenario API's URL prefix.
    #[prop(optional, into)]
    api: Option<String>,
) -> impl IntoView {
    let api = api.unwrap_or_else(|| "/api".to_owned());
    provide_context(Api(api));
    view! {
        <Router>
            <header class="top">
                <span class="brand">"Palette List"</span>
                <nav>
                    <A href="/">"Shared API"</A>
                    <A href="/one">"One screen"</A>
                    <A href="/scenarios">"Scenarios"</A>
                    <A href="/about">"About"</A>
                </nav>
            </header>
            <main>
                <Routes fallback=|| view! { <p class="notice">"This page could not be found."</p> }>
                    <Route path=path!("/") view=shared_api::SharedApiPage />
                    <Route path=path!("/one") view=PaletteScreen />
                    <Route path=path!("/scenarios") view=ScenariosPage />
                    <Route path=path!("/about") view=About />
                </Routes>
            </main>
        </Router>
    }
}

#[derive(Clone)]
struct Api(String);

fn api() -> String {
    use_context::<Api>()
        .map(|a| a.0)
        .unwrap_or_else(|| "/api".into())
}

/// The fixture's cases, as the scenario API plays them.
fn use_cases() -> LocalResource<Result<Vec<Case>, String>> {
    let url = format!("{}/fixture", api());
    LocalResource::new(move || {
        let url = url.clone();
        async move {
            let r = gloo_net::http::Request::get(&url)
                .send()
                .await
                .map_err(|e| format!("the scenario API did not answer ({e}); is it running?"))?;
            let text = r.text().await.map_err(|e| e.to_string())?;
            let fixture = Fixture::parse(&text).map_err(|e| e.to_string())?;
            Ok(fixture.cases.into_iter().flatten().collect())
        }
    })
}

/// Shows `cases` once loaded, with a notice while they load and the error if they cannot.
fn with_cases<V: IntoView + 'static>(
    cases: LocalResource<Result<Vec<Case>, String>>,
    loaded: impl Fn(Vec<Case>) -> V + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <Suspense fallback=|| view! { <p class="notice">"Loading the scenarios…"</p> }>
            {move || Suspend::new(async move {
                match cases.await {
                    Ok(all) => loaded(all).into_any(),
                    Err(e) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The Palette List screen, reading through a scenario the user picks (`?scenario=`).
#[component]
fn PaletteScreen() -> impl IntoView {
    let cases = use_cases();
    with_cases(cases, |all| view! { <ScenarioScreen cases=all /> })
}

/// The picker and the screen, once the scenarios are known. Coming here is a load; after that,
/// only the user starts one.
#[component]
fn ScenarioScreen(cases: Vec<Case>) -> impl IntoView {
    let api = StoredValue::new(api());
    let cases = StoredValue::new(cases);
    let page_query = use_query_map().get_untracked();
    let picked = RwSignal::new(
        page_query
            .get("scenario")
            .unwrap_or_else(|| "schedule-a-seconds".to_owned()),
    );
    // How the API misbehaves, passed on to every run: `expose=none` hides Retry-After and Date
    // from other origins; `moved_to=ORIGIN` redirects the palettes there.
    let misbehave = StoredValue::new(
        ["expose", "moved_to"]
            .into_iter()
            .filter_map(|k| {
                page_query
                    .get(k)
                    .map(|v| format!("&{k}={}", js_sys::encode_uri_component(&v)))
            })
            .collect::<String>(),
    );
    // The current run: (its palettes prefix, its case). A new load is a new run.
    let run = RwSignal::new(None::<Result<(String, Case), String>>);
    let load = move || {
        let id = picked.get_untracked();
        let Some(case) = cases.with_value(|all| all.iter().find(|c| c.id == id).cloned()) else {
            run.set(Some(Err(format!("no scenario {id}"))));
            return;
        };
        let api = api.get_value();
        spawn_local(async move {
            let query = format!(
                "scenario={}{}",
                js_sys::encode_uri_component(&case.id),
                misbehave.get_value()
            );
            let started = live::new_run(&api, &query)
                .await
                .map(|base| (base, case))
                .map_err(|e| e.to_string());
            run.try_set(Some(started));
        });
    };
    load();
    let options = move || {
        cases
            .get_value()
            .into_iter()
            .map(|c| {
                let selected = c.id == picked.get_untracked();
                view! { <option value=c.id.clone() selected=selected>{c.id.clone()}</option> }
            })
            .collect_view()
    };
    view! {
        <div class="screen">
            <h1>"One screen"</h1>
            <form class="picker" on:submit=move |ev| {
                ev.prevent_default();
                load();
            }>
                <label>
                    "The API behaves like "
                    <select
                        data-testid="scenario"
                        prop:value=move || picked.get()
                        on:change=move |ev| picked.set(event_target_value(&ev))
                    >
                        {options}
                    </select>
                </label>
                <button type="submit" data-testid="load">"Load"</button>
            </form>
            {move || match run.get() {
                None => view! { <p class="notice">"Connecting to the scenario API…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
                Some(Ok((base, case))) => view! { <TracedScreen base policy=case.client_policy() /> }
                    .into_any(),
            }}
        </div>
    }
}

/// The Palette List screen as the demo shows it: what the user sees, with the trace and the
/// timeline beneath (collapsed) for whoever wants to see how the read went.
#[component]
fn TracedScreen(base: String, policy: RetryPolicy) -> impl IntoView {
    let url = palettes_url(&base, "coast");
    // Each run is its own API, so its own scope.
    let policy = policy.with_scope(base);
    let read = use_budgeted_read(ReadRequest::get(url), policy, PaletteCollection::from_json);
    view! {
        <PaletteListView read collection="coast">
            <TracePanel read id="timeline-traced" />
        </PaletteListView>
    }
}

/// Every scenario of the fixture file, each playable in real time.
#[component]
fn ScenariosPage() -> impl IntoView {
    let cases = use_cases();
    // The case being played, and how many plays so far (a second play of the same case is a
    // new run).
    let playing = RwSignal::new(None::<(u64, Case)>);
    let list = move |all: Vec<Case>| {
        view! {
            <table class="scenarios" data-testid="scenarios">
                <thead>
                    <tr><th>"Case"</th><th>"What happens"</th><th>"Expected"</th><th>"Play"</th></tr>
                </thead>
                <tbody>
                    {all
                        .into_iter()
                        .map(|c| {
                            let expected = c
                                .expect
                                .as_ref()
                                .and_then(|e| e.get("outcome"))
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned();
                            let id = c.id.clone();
                            view! {
                                <tr>
                                    <td class="id">{c.id.clone()}</td>
                                    <td>{c.source.clone().unwrap_or_default()}</td>
                                    <td><code>{expected}</code></td>
                                    <td>
                                        <button
                                            data-testid=format!("play-{id}")
                                            on:click=move |_| {
                                                let n = playing.with_untracked(|p| p.as_ref().map_or(0, |p| p.0));
                                                playing.set(Some((n + 1, c.clone())));
                                            }
                                        >
                                            "Play"
                                        </button>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        }
    };
    view! {
        <div class="screen">
            <h1>"Scenarios"</h1>
            <p>
                "Each case of the fixture file, played in real time against the scenario API: "
                "the client's trace on the left, the requests the server saw on the right."
            </p>
            {move || playing.get().map(|(_, case)| view! { <ScenarioPlayer case /> })}
            {with_cases(cases, list)}
        </div>
    }
}

/// One scenario, played: a fresh run, the client (with the fixture's leave and late timers
/// staged for real) and the server's view of the same run.
#[component]
fn ScenarioPlayer(
    /// The case to play.
    case: Case,
) -> impl IntoView {
    let api = api();
    let base = RwSignal::new(None::<Result<String, String>>);
    let query = format!("scenario={}", js_sys::encode_uri_component(&case.id));
    spawn_local(async move {
        let r = live::new_run(&api, &query).await.map_err(|e| e.to_string());
        base.try_set(Some(r));
    });
    let title = format!("{}: {}", case.id, case.source.clone().unwrap_or_default());
    view! {
        <section class="player" data-testid="player">
            <h2>{title}</h2>
            {move || match base.get() {
                None => view! { <p class="notice">"Starting a run…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="notice">{e}</p> }.into_any(),
                Some(Ok(base)) => view! { <SideBySide case=case.clone() base /> }.into_any(),
            }}
        </section>
    }
}

/// The client's screen beside the server's requests, for one run.
#[component]
fn SideBySide(
    /// The case being played.
    case: Case,
    /// The run's URL prefix.
    base: String,
) -> impl IntoView {
    let url = palettes_url(&base, "coast");
    // Each run is its own API, so its own scope.
    let policy = case.client_policy().with_scope(base.clone());
    let read = use_budgeted_read(ReadRequest::get(url), policy, PaletteCollection::from_json);
    live::stage(&case, read);
    // The server's side, polled while this is on screen.
    let requests = RwSignal::new(Vec::<ServerRequest>::new());
    let poller = SendWrapper::new(Interval::new(300, move || {
        let base = base.clone();
        spawn_local(async move {
            if let Ok(seen) = live::server_requests(&base).await {
                requests.try_set(seen);
            }
        });
    }));
    on_cleanup(move || drop(poller));
    let expected = case
        .expect
        .as_ref()
        .map(|e| {
            format!(
                "Expected: {} at {} s",
                e.get("outcome").and_then(Value::as_str).unwrap_or("?"),
                e.get("stopped_at_s")
                    .map(Value::to_string)
                    .unwrap_or_default()
            )
        })
        .unwrap_or_default();
    let at = |d: Duration| format!("{} s", seconds_text(d, Precision::Millis));
    view! {
        <div class="side-by-side">
            <div class="client">
                <h3>"Client"</h3>
                <p class="meta" data-testid="expected">{expected}</p>
                <PaletteListView read collection="coast">
                    <TracePanel read id="timeline-side-by-side" open=true />
                </PaletteListView>
            </div>
            <div class="server">
                <h3>"Server"</h3>
                <table data-testid="server-requests">
                    <thead>
                        <tr><th>"#"</th><th>"arrived"</th><th>"ended"</th><th>"state"</th><th>"status"</th></tr>
                    </thead>
                    <tbody>
                        {move || {
                            requests
                                .get()
                                .into_iter()
                                .map(|r| {
                                    view! {
                                        <tr>
                                            <td>{r.n}</td>
                                            <td>{at(r.arrived)}</td>
                                            <td>{r.ended.map(at).unwrap_or_default()}</td>
                                            <td>{r.state}</td>
                                            <td>{r.status.map(|s| s.to_string()).unwrap_or_default()}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </div>
        </div>
    }
}

/// "20 seconds", as the About page writes a policy's figures.
fn seconds_words(d: Duration) -> String {
    format!("{} seconds", seconds_text(d, Precision::Tenths))
}

/// Another screen, so leaving the Palette List is real navigation. Its numbers are the default
/// policy's.
#[component]
fn About() -> impl IntoView {
    const POLICY: RetryPolicy = RetryPolicy::new();
    let budget = format!(
        "Each load of the Palette List is one read action with its own finite budget: {} from \
         the first attempt's start, at most {} attempts, {} reserved for each before it \
         starts. Retry-After is honoured exactly and never shortened; a wait that cannot fit \
         stops the read at once, and says so.",
        seconds_words(POLICY.budget()),
        POLICY.max_attempts(),
        seconds_words(POLICY.attempt_cap()),
    );
    view! {
        <div class="screen prose" data-testid="about">
            <h1>"About"</h1>
            <p data-testid="about-budget">{budget}</p>
            <p>
                "Leaving the Palette List (as you did to get here) stops its read: the timer is "
                "cleared and the request in flight is aborted. Nothing continues in the background."
            </p>
        </div>
    }
}
