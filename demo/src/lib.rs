//! The demo app: the Palette List screen on real routes (so leaving is real navigation), and a
//! scenarios page that plays each fixture case against the scenario API with the client's trace
//! and the server's requests side by side.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::hooks::use_query_map;
use leptos_router::path;
use send_wrapper::SendWrapper;
use serde_json::Value;

use crate::budget::{secs, Event, RetryPolicy};
use crate::components::{PaletteList, PaletteListView};
use crate::model::{Case, Fixture};
use crate::palettes::PaletteCollection;
use crate::runtime::{now, use_budgeted_get, ReadState};

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
                    <A href="/">"Palettes"</A>
                    <A href="/scenarios">"Scenarios"</A>
                    <A href="/about">"About"</A>
                </nav>
            </header>
            <main>
                <Routes fallback=|| view! { <p class="notice">"This page could not be found."</p> }>
                    <Route path=path!("/") view=PaletteScreen />
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

/// The client policy for a fixture case: its budget, with the local clock trusted only where the
/// fixture has one.
pub fn client_policy(case: &Case) -> RetryPolicy {
    case.policy
        .clone()
        .with_trust_local_clock(case.wall_clock_at_zero.is_some())
}

/// The fixture's cases, as the scenario API plays them.
fn use_cases() -> ReadSignal<Option<Result<Vec<Case>, String>>> {
    let cases = RwSignal::new(None);
    let url = format!("{}/fixture", api());
    spawn_local(async move {
        let loaded = async {
            let r = gloo_net::http::Request::get(&url)
                .send()
                .await
                .map_err(|e| format!("the scenario API did not answer ({e}); is it running?"))?;
            let text = r.text().await.map_err(|e| e.to_string())?;
            let fixture = Fixture::parse(&text).map_err(|e| e.to_string())?;
            Ok(fixture.cases.into_iter().flatten().collect::<Vec<_>>())
        };
        cases.try_set(Some(loaded.await));
    });
    cases.read_only()
}

/// Starts a run of `scenario` on the scenario API; its palettes are under the returned prefix.
async fn new_run(api: &str, scenario: &str) -> Result<String, String> {
    let r = gloo_net::http::Request::post(&format!(
        "{api}/runs?scenario={}",
        js_sys::encode_uri_component(scenario)
    ))
    .send()
    .await
    .map_err(|e| e.to_string())?;
    let v: Value = r.json().await.map_err(|e| e.to_string())?;
    match v["base"].as_str() {
        Some(base) => Ok(format!("{api}{base}")),
        None => Err(v["error"]
            .as_str()
            .unwrap_or("no run was created")
            .to_owned()),
    }
}

/// The Palette List screen, reading through a scenario the user picks (`?scenario=`).
#[component]
fn PaletteScreen() -> impl IntoView {
    let api = api();
    let cases = use_cases();
    let query = use_query_map();
    let picked = RwSignal::new(
        query
            .get_untracked()
            .get("scenario")
            .unwrap_or_else(|| "schedule-a-seconds".to_owned()),
    );
    // The current run: (its palettes prefix, its case). A new load is a new run.
    let run = RwSignal::new(None::<Result<(String, Case), String>>);
    let load = {
        let api = api.clone();
        move || {
            let Some(Ok(all)) = cases.get_untracked() else {
                return;
            };
            let id = picked.get_untracked();
            let Some(case) = all.into_iter().find(|c| c.id == id) else {
                run.set(Some(Err(format!("no scenario {id}"))));
                return;
            };
            let api = api.clone();
            spawn_local(async move {
                let started = new_run(&api, &case.id).await.map(|base| (base, case));
                run.try_set(Some(started));
            });
        }
    };
    // Coming to the screen is a load; after that, only the user starts one.
    let first = load.clone();
    Effect::new(move |done: Option<bool>| {
        if done != Some(true) && matches!(cases.get(), Some(Ok(_))) {
            first();
            return true;
        }
        done.unwrap_or(false)
    });
    let options = move || match cases.get() {
        Some(Ok(all)) => all
            .into_iter()
            .map(|c| {
                let selected = c.id == picked.get_untracked();
                view! { <option value=c.id.clone() selected=selected>{c.id.clone()}</option> }
            })
            .collect_view()
            .into_any(),
        _ => ().into_any(),
    };
    view! {
        <div class="screen">
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
            {move || match cases.get() {
                Some(Err(e)) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
                _ => ().into_any(),
            }}
            {move || match run.get() {
                None => view! { <p class="notice">"Connecting to the scenario API…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
                Some(Ok((base, case))) => view! {
                    <PaletteList collection="coast" api_base=base policy=client_policy(&case) />
                }
                .into_any(),
            }}
        </div>
    }
}

/// Every scenario of the fixture file, each playable in real time.
#[component]
fn ScenariosPage() -> impl IntoView {
    let cases = use_cases();
    let playing = RwSignal::new(None::<(u64, Case)>);
    let plays = StoredValue::new(0u64);
    let list = move || match cases.get() {
        None => view! { <p class="notice">"Loading the scenarios…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="notice" data-testid="api-error">{e}</p> }.into_any(),
        Some(Ok(all)) => view! {
            <table class="scenarios" data-testid="scenarios">
                <thead>
                    <tr><th>"Case"</th><th>"What happens"</th><th>"Expected"</th><th></th></tr>
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
                                                plays.update_value(|n| *n += 1);
                                                playing.set(Some((plays.get_value(), c.clone())));
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
        .into_any(),
    };
    view! {
        <div class="screen">
            <h1>"Scenarios"</h1>
            <p>
                "Each case of the fixture file, played in real time against the scenario API: "
                "the client's trace on the left, the requests the server saw on the right."
            </p>
            {move || playing.get().map(|(_, case)| view! { <ScenarioPlayer case /> })}
            {list}
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
    let id = case.id.clone();
    spawn_local(async move {
        let r = new_run(&api, &id).await;
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

#[component]
fn SideBySide(case: Case, base: String) -> impl IntoView {
    let read = use_budgeted_get::<PaletteCollection>(
        format!("{base}/palettes?collection=coast"),
        client_policy(&case),
    );
    // Timers this player stages; dropped (cleared) when it goes.
    let staged = Rc::new(RefCell::new(Vec::new()));
    // The fixture's leave: the user cancels at that second.
    if let Some(leave) = case.user_leaves_at {
        let t = Timeout::new(leave.as_millis() as u32, move || read.cancel());
        staged.borrow_mut().push(t);
    }
    // The fixture's late timers: block the main thread across the planned wake, as a
    // backgrounded tab would.
    let late = case.timer_late_by.clone();
    let seen = StoredValue::new(0usize);
    let stage = staged.clone();
    Effect::new(move |_| {
        if let ReadState::Waiting { until, .. } = read.state.get() {
            let planned = read
                .trace
                .get_untracked()
                .iter()
                .filter(|e| matches!(e.event, Event::WaitPlanned { .. }))
                .count();
            if planned > seen.get_value() {
                seen.set_value(planned);
                if let Some(l) = late.get(planned - 1).copied().filter(|l| !l.is_zero()) {
                    let start = until.saturating_sub(now() + Duration::from_millis(150));
                    let t =
                        Timeout::new(start.as_millis() as u32, move || while now() < until + l {});
                    stage.borrow_mut().push(t);
                }
            }
        }
    });
    // The server's side, polled while this is on screen.
    let requests = RwSignal::new(Vec::<Value>::new());
    let poll = {
        let base = base.clone();
        move || {
            let base = base.clone();
            spawn_local(async move {
                if let Ok(r) = gloo_net::http::Request::get(&base).send().await {
                    if let Ok(v) = r.json::<Value>().await {
                        requests.try_set(v["requests"].as_array().cloned().unwrap_or_default());
                    }
                }
            });
        }
    };
    let poller = SendWrapper::new(Interval::new(300, poll));
    let staged = SendWrapper::new(staged);
    on_cleanup(move || {
        drop(poller);
        staged.borrow_mut().clear();
    });
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
    view! {
        <div class="side-by-side">
            <div class="client">
                <h3>"Client"</h3>
                <p class="meta" data-testid="expected">{expected}</p>
                <PaletteListView read collection="coast" trace_open=true />
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
                                    let ms = |k: &str| {
                                        r[k].as_u64()
                                            .map(|m| format!("{} s", secs(Duration::from_millis(m))))
                                            .unwrap_or_default()
                                    };
                                    view! {
                                        <tr>
                                            <td>{r["n"].to_string()}</td>
                                            <td>{ms("arrived_ms")}</td>
                                            <td>{ms("ended_ms")}</td>
                                            <td>{r["state"].as_str().unwrap_or("").to_owned()}</td>
                                            <td>{r["status"].as_u64().map(|s| s.to_string()).unwrap_or_default()}</td>
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

/// Another screen, so leaving the Palette List is real navigation.
#[component]
fn About() -> impl IntoView {
    view! {
        <div class="screen prose" data-testid="about">
            <h1>"About"</h1>
            <p>
                "Each load of the Palette List is one read action with its own finite budget: "
                "20 seconds from the first attempt's start, at most 3 attempts, 4 seconds reserved "
                "for each before it starts. Retry-After is honoured exactly and never shortened; "
                "a wait that cannot fit stops the read at once, and says so."
            </p>
            <p>
                "Leaving the Palette List (as you did to get here) stops its read: the timer is "
                "cleared and the request in flight is aborted. Nothing continues in the background."
            </p>
        </div>
    }
}
