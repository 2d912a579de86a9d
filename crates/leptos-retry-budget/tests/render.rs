//! A server's render reads (`ssr`), natively and on the wire: a component's read goes through
//! the process's `retry_budget_tokio::Client` to an API on loopback while the page renders, what
//! it came to is written into the page's shared context as the read's part, and the read's
//! views, held by `<ReadSuspense>` until then, show that part as the browser will read it back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use hydration_context::{SharedContext, SsrSharedContext};
use leptos::prelude::*;
use leptos_retry_budget::{
    provide_server_reads, use_budgeted_get, ReadRequest, ReadState, ReadSuspense, RetryPolicy,
    ServerReads,
};
use retry_budget::action::WaitReason;
use retry_budget_tokio::{AllowedOrigins, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// An API on loopback that answers each request with the next of `answers` (a status line and
/// its headers, then a body), and counts what it was asked.
struct Api {
    base: String,
    asked: Arc<Mutex<u32>>,
}

impl Api {
    async fn start(answers: &'static [(&'static str, &'static str)]) -> Api {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(0u32));
        let count = asked.clone();
        tokio::spawn(async move {
            for (head, body) in answers {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut request = Vec::new();
                let mut chunk = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the request ended before its headers did");
                    request.extend_from_slice(&chunk[..n]);
                }
                *count.lock().unwrap() += 1;
                let answer = format!(
                    "{head}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(answer.as_bytes()).await.unwrap();
            }
        });
        Api { base, asked }
    }

    fn asked(&self) -> u32 {
        *self.asked.lock().unwrap()
    }
}

/// What the read's views show, in words a test can find in the HTML.
fn shown(state: ReadState<Vec<String>>) -> String {
    match state {
        ReadState::Loaded { data, report } => {
            format!("loaded: {} ({:?})", data.join(","), report.outcome)
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

/// Renders one screen reading `/palettes` of `api` with `policy`, as a server whose renders
/// are given `ServerReads` does, through a client that may read `allowed`.
async fn render(api: &Api, allowed: &str, policy: RetryPolicy) -> Rendered {
    let client = Client::new(AllowedOrigins::new([allowed]).unwrap());
    let reads = ServerReads::new(client, |browser: &ReadRequest| browser.clone());
    let url = format!("{}/palettes", api.base);
    let context = Arc::new(SsrSharedContext::new());
    let shared: Arc<dyn SharedContext + Send + Sync> = context.clone();
    let owner = Owner::new_root(Some(shared));
    let html = owner.with(move || {
        provide_server_reads(reads);
        view! { <Screen url policy /> }.to_html_stream_in_order()
    });
    let html: String = html.collect::<Vec<_>>().await.concat();
    let part = match context.pending_data() {
        Some(data) => data.collect::<Vec<_>>().await.concat(),
        None => String::new(),
    };
    Rendered { html, part }
}

/// A screen of one read: what it shows, and how long its trace is.
#[component]
fn Screen(url: String, policy: RetryPolicy) -> impl IntoView {
    let read = use_budgeted_get::<Vec<String>>(ReadRequest::get(url), policy);
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
    let api = Api::start(&[("HTTP/1.1 200 OK", r#"["coast","dusk"]"#)]).await;
    let Rendered { html, part } = render(&api, &api.base, RetryPolicy::new()).await;
    assert!(
        html.contains("<p>loaded: coast,dusk (Succeeded)</p>"),
        "{html}"
    );
    // The views read the render's trace back from its part, event by event.
    assert!(html.contains("<p>4 events</p>"), "{html}");
    assert!(
        part.contains("retry-budget part"),
        "no part was written: {part}"
    );
    assert!(part.contains("coast"), "the part carries the data: {part}");
    assert_eq!(api.asked(), 1);
}

#[tokio::test]
async fn a_wait_past_the_renders_hold_is_handed_to_the_browser() {
    executor();
    let api = Api::start(&[("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30", "{}")]).await;
    let policy = RetryPolicy::new().with_budget(Duration::from_secs(60));
    let Rendered { html, part } = render(&api, &api.base, policy).await;
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
    assert_eq!(api.asked(), 1);
}

#[tokio::test]
async fn a_read_the_server_may_not_make_is_refused_in_the_render_and_nothing_is_sent() {
    executor();
    let api = Api::start(&[("HTTP/1.1 200 OK", "[]")]).await;
    // Another origin than the one the client may read: refused before anything is sent.
    let Rendered { html, part } = render(&api, "http://127.0.0.1:9", RetryPolicy::new()).await;
    assert!(html.contains("other: Refused"), "{html}");
    assert!(html.contains("<p>0 events</p>"), "{html}");
    assert!(
        part.contains("retry-budget part"),
        "no part was written: {part}"
    );
    assert_eq!(api.asked(), 0);
}
