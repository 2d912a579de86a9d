//! A server's render reads (`ssr`), natively and on the wire: a component's read goes through
//! the process's `retry_budget_tokio::Client` to the scenario API on loopback (in this process)
//! while the page renders, what
//! it came to is written into the page's shared context as the read's part, and the read's
//! views, held by `<ReadSuspense>` until then, show that part as the browser will read it back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hydration_context::{SharedContext, SsrSharedContext};
use leptos::prelude::*;
use leptos_retry_budget::{
    provide_server_reads, use_budgeted_get, ReadRequest, ReadState, ReadStatus, ReadSuspense,
    RetryPolicy, ServerReads,
};
use retry_budget::action::WaitReason;
use retry_budget_tokio::{AllowedOrigins, Client};
use serde_json::Value;

/// Short cases: an answer at once, and a 429 whose wait is past any render's hold.
const FIXTURE: &str = r##"{
  "policy": { "budget_s": 60, "max_attempts": 3, "attempt_cap_s": 2, "retry_statuses": [429],
              "min_wait_s": 0.5, "fallback_waits_s": [1] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "cases": [
    { "id": "loads", "attempts": [ { "duration_s": 0.05, "status": 200, "body": "coast" } ] },
    { "id": "far", "attempts": [
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "30" } } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "Dusk", "colors": ["#000000"] } ] } }
}"##;

/// A run of case `id` on the scenario API, served on a free loopback port in this process.
struct Run {
    origin: String,
    palettes: String,
}

impl Run {
    async fn of(id: &str) -> Run {
        let scenarios = scenario_api::Scenarios::new(vec![FIXTURE.to_owned()]).unwrap();
        let origin = scenario_api::serve_on_loopback(scenarios.router())
            .await
            .unwrap();
        let made = json(reqwest::Client::new().post(format!("{origin}/runs?scenario={id}"))).await;
        let base = made["base"].as_str().unwrap();
        let palettes = format!("{origin}{base}/palettes?collection=coast");
        Run { origin, palettes }
    }

    /// How many requests reached the run.
    async fn reached(&self) -> usize {
        let report = self.palettes.trim_end_matches("/palettes?collection=coast");
        let report = json(reqwest::Client::new().get(report)).await;
        report["requests"].as_array().unwrap().len()
    }
}

async fn json(request: reqwest::RequestBuilder) -> Value {
    let bytes = request.send().await.unwrap().bytes().await.unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// What the read's views show, in words a test can find in the HTML.
fn shown(state: ReadState<Value>) -> String {
    match state {
        ReadState::Loaded { data, report } => {
            let name = data["palettes"][0]["name"]
                .as_str()
                .unwrap_or("?")
                .to_owned();
            format!("loaded: {name} ({:?})", report.outcome)
        }
        ReadState::Waiting { next, reason, .. } => {
            let delay = match reason {
                WaitReason::ServerDelay(delay) => delay.as_secs(),
                _ => 0,
            };
            format!("waiting for attempt {next}, as the API asked {delay} s")
        }
        ReadState::Stopped(report) => format!("stopped: {:?}", report.outcome),
        other => format!("other: {other:?}"),
    }
}

/// What a render gave: the page's HTML once every read has come to something, and the part
/// the render wrote into the shared context.
struct Rendered {
    html: String,
    part: String,
}

/// Renders one screen reading `run`'s palettes with `policy`, as a server whose renders are
/// given `ServerReads` does, through a client that may read `allowed`.
async fn render(run: &Run, allowed: &str, policy: RetryPolicy) -> Rendered {
    render_with(run, allowed, |url| view! { <Screen url policy /> }).await
}

/// Renders `screen` (given the URL of `run`'s palettes) as [`render`] does.
async fn render_with<V>(run: &Run, allowed: &str, screen: impl FnOnce(String) -> V) -> Rendered
where
    V: RenderHtml,
{
    let client = Client::new(AllowedOrigins::new([allowed]).unwrap());
    let reads = ServerReads::new(client, |browser: &ReadRequest| browser.clone());
    let url = run.palettes.clone();
    let context = Arc::new(SsrSharedContext::new());
    let shared: Arc<dyn SharedContext + Send + Sync> = context.clone();
    let owner = Owner::new_root(Some(shared));
    let html = owner.with(move || {
        provide_server_reads(reads);
        screen(url).to_html_stream_in_order()
    });
    let html: String = html.collect::<Vec<_>>().await.concat();
    let part = match context.pending_data() {
        Some(data) => data.collect::<Vec<_>>().await.concat(),
        None => String::new(),
    };
    Rendered { html, part }
}

/// The library's own status view of one read, as a screen embeds it.
#[component]
fn Status(url: String, policy: RetryPolicy) -> impl IntoView {
    let read = use_budgeted_get::<Value>(ReadRequest::get(url), policy);
    let loaded = |_: Value, _| "loaded";
    view! { <ReadStatus read loaded /> }
}

/// A screen of one read: what it shows, and how long its trace is.
#[component]
fn Screen(url: String, policy: RetryPolicy) -> impl IntoView {
    let read = use_budgeted_get::<Value>(ReadRequest::get(url), policy);
    view! {
        <ReadSuspense read>
            <p>{move || shown(read.state.get())}</p>
            <p>{move || format!("{} events", read.trace().len())}</p>
        </ReadSuspense>
    }
}

fn executor() {
    // Every test of this file runs on tokio; the first to ask sets the executor up.
    let _ = any_spawner::Executor::init_tokio();
}

#[tokio::test]
async fn data_read_in_the_render_is_in_its_html_and_its_part() {
    executor();
    let run = Run::of("loads").await;
    let Rendered { html, part } = render(&run, &run.origin, RetryPolicy::new()).await;
    assert!(html.contains("<p>loaded: Dusk (Succeeded)</p>"), "{html}");
    // The views read the render's trace back from its part, event by event.
    assert!(html.contains("<p>4 events</p>"), "{html}");
    assert!(
        part.contains("retry-budget part"),
        "no part was written: {part}"
    );
    assert!(part.contains("Dusk"), "the part carries the data: {part}");
    assert_eq!(run.reached().await, 1);
}

#[tokio::test]
async fn a_wait_past_the_renders_hold_is_handed_to_the_browser() {
    executor();
    let run = Run::of("far").await;
    let policy = RetryPolicy::new().with_budget(Duration::from_secs(60));
    let Rendered { html, part } = render(&run, &run.origin, policy).await;
    assert!(
        html.contains("<p>waiting for attempt 2, as the API asked 30 s</p>"),
        "{html}"
    );
    assert!(html.contains("<p>4 events</p>"), "{html}");
    assert!(
        part.contains("retry-budget part"),
        "no part was written: {part}"
    );
    // The server made its one attempt, and left the wait to the browser.
    assert_eq!(run.reached().await, 1);
}

#[tokio::test]
async fn a_read_the_server_may_not_make_is_refused_in_the_render_and_nothing_is_sent() {
    executor();
    let run = Run::of("loads").await;
    // Another origin than the one the client may read: refused before anything is sent, and
    // said in the server's log by the origin, never the path.
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let sink = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || Sink(sink.clone()))
        .finish();
    let rendered = {
        let _default = tracing::subscriber::set_default(subscriber);
        render(&run, "http://127.0.0.1:9", RetryPolicy::new()).await
    };
    let said = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    let refused: Vec<&str> = (said.lines())
        .filter(|l| l.contains("WARN") && l.contains("not sent from the server"))
        .collect();
    assert_eq!(refused.len(), 1, "{said}");
    assert!(refused[0].contains(&run.origin), "{said}");
    assert!(
        !said.contains("/palettes"),
        "the path reached the log: {said}"
    );
    let Rendered { html, part } = rendered;
    assert!(html.contains("other: Refused"), "{html}");
    assert!(html.contains("<p>0 events</p>"), "{html}");
    assert!(
        part.contains("retry-budget part"),
        "no part was written: {part}"
    );
    assert_eq!(run.reached().await, 0);
}

/// The words of a stop are the contract's, exactly, as the screen shows them: a 429 asking 30 s
/// of a read with 20 s stops at once, on the server, with no retry sent.
#[tokio::test]
async fn a_stop_in_the_render_says_the_contracts_words() {
    executor();
    let run = Run::of("far").await;
    let policy = RetryPolicy::new().with_budget(Duration::from_secs(20));
    let Rendered { html, .. } =
        render_with(&run, &run.origin, |url| view! { <Status url policy /> }).await;
    for words in [
        "Stopped: retry budget cannot fit another request.",
        "The service requested a 30-second delay. No retry was sent.",
        "Last response: 429. Attempts: 1 of 3.",
    ] {
        assert!(html.contains(words), "{words:?} is not in {html}");
    }
    assert_eq!(run.reached().await, 1, "no retry was sent");
}

/// Where a test's subscriber writes.
struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
