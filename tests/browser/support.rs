//! What the browser suites share: the scenario API, mounting a screen, reading the DOM,
//! waiting on a real clock.

pub(crate) use std::cell::RefCell;
pub(crate) use std::rc::Rc;
pub(crate) use std::time::Duration;

pub(crate) use leptos::mount::mount_to;
pub(crate) use leptos::prelude::*;
pub(crate) use leptos::task::tick;
pub(crate) use leptos_retry_budget::runtime::{now, provide_scope_policy};
pub(crate) use palette_list::palettes::{palettes_url, PaletteCollection};
pub(crate) use palette_list::{
    use_budgeted_get, use_budgeted_read, BudgetedRead, PaletteList, PaletteListView, ReadRequest,
    ReadState, TracePanel,
};
pub(crate) use palette_list_demo::live;
pub(crate) use palette_list_model::expect::{compare, line_matches, Comparison};
pub(crate) use palette_list_model::{Case, Fixture, Replay};
pub(crate) use retry_budget::body::BodyProblem;
pub(crate) use retry_budget::report::OutcomeKind;
pub(crate) use retry_budget::{Outcome, RetryPolicy, ScopePolicy, StopReport};
pub(crate) use wasm_bindgen::JsCast;
pub(crate) use wasm_bindgen_test::*;

pub(crate) use crate::common;

/// How far the real runtime may be from the fixture's times.
pub(crate) const TOLERANCE: Duration = Duration::from_millis(150);

/// A line of the stop message on a real clock: its durations within [`TOLERANCE`] (and the tenth
/// they are rounded to), everything else exactly.
pub(crate) fn assert_line(got: &str, expected: &str) {
    let real = Comparison::RealTime {
        tolerance: TOLERANCE,
    };
    assert!(
        line_matches(expected, got, real),
        "expected {expected:?}, got {got:?}"
    );
}

pub(crate) fn api() -> &'static str {
    match option_env!("SCENARIO_API") {
        Some(url) => url,
        None => panic!(
            "SCENARIO_API is not set: run the browser tests with scripts/test.sh, which starts the scenario API"
        ),
    }
}

pub(crate) fn case(id: &str) -> Case {
    common::SINGLE_READS
        .iter()
        .flat_map(|t| Fixture::parse(t).unwrap().cases)
        .flatten()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

pub(crate) async fn post_run(scenario: &str) -> String {
    post_run_query(&format!("scenario={scenario}")).await
}

/// A new run on the scenario API, created with this query; returns its palettes prefix.
pub(crate) async fn post_run_query(query: &str) -> String {
    live::new_run(api(), query)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What the server saw in a run: each request's state ("answered", "aborted", "in_flight").
pub(crate) async fn server_saw(base: &str) -> Vec<String> {
    live::server_requests(base)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| r.state)
        .collect()
}

pub(crate) async fn sleep(d: Duration) {
    gloo_timers::future::TimeoutFuture::new(d.as_millis() as u32).await;
}

pub(crate) fn fresh_element() -> web_sys::HtmlElement {
    let document = document();
    let el = document.create_element("section").unwrap();
    document.body().unwrap().append_child(&el).unwrap();
    el.unchecked_into()
}

pub(crate) fn text(root: &web_sys::HtmlElement, testid: &str) -> Option<String> {
    root.query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .and_then(|e| e.text_content())
}

/// Polls `f` every 20 ms until it gives `Some`, or fails after `limit`.
pub(crate) async fn wait_for<T>(
    limit: Duration,
    what: &str,
    mut f: impl FnMut() -> Option<T>,
) -> T {
    let end = now() + limit;
    loop {
        tick().await;
        if let Some(v) = f() {
            return v;
        }
        assert!(now() < end, "timed out waiting for {what}");
        sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn report_of(state: &ReadState<PaletteCollection>) -> Option<StopReport> {
    match state {
        ReadState::Loaded { report, .. } | ReadState::Stopped(report) => Some(report.clone()),
        _ => None,
    }
}

/// A fresh run of `scenario` on the server, and the Palette List screen mounted on it.
pub(crate) async fn screen(scenario: &str) -> (String, web_sys::HtmlElement, impl Drop) {
    screen_with(&format!("scenario={scenario}"), None).await
}

/// The same, for a run created with `query`, under `policy` (default: the SPEC's): the screen
/// with its trace panel, as the demo shows it.
pub(crate) async fn screen_with(
    query: &str,
    policy: Option<RetryPolicy>,
) -> (String, web_sys::HtmlElement, impl Drop) {
    let base = post_run_query(query).await;
    let root = fresh_element();
    let url = palettes_url(&base, "coast");
    let handle = mount_to(root.clone(), move || {
        // Each run is its own API: its own scope, so one test's 429 holds back no other.
        let policy = policy.unwrap_or_default().with_scope(url.clone());
        let id = url.clone();
        let read = use_budgeted_read(ReadRequest::get(url), policy, PaletteCollection::from_json);
        view! {
            <PaletteListView read collection="coast">
                <TracePanel read id />
            </PaletteListView>
        }
    });
    (base, root, handle)
}

/// Clicks the button with this `data-testid`, as a user would.
pub(crate) fn click(root: &web_sys::HtmlElement, testid: &str) {
    let button: web_sys::HtmlElement = root
        .query_selector(&format!("[data-testid={testid}]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no {testid} button"))
        .unchecked_into();
    button.click();
}

/// Mounts the hook alone and hands it to the test; with a `case`, stages its leave and late
/// timers for real ([`live::stage`]), as the demo's Scenarios page does.
pub(crate) fn mount_hook(
    url: String,
    policy: RetryPolicy,
    stage: Option<Case>,
) -> (BudgetedRead<PaletteCollection>, impl Drop) {
    let slot = Rc::new(RefCell::new(None));
    let inner = slot.clone();
    let handle = mount_to(fresh_element(), move || {
        // Each run is its own API: its own scope, so one test's 429 holds back no other.
        let policy = policy.with_scope(url.clone());
        let read = use_budgeted_get::<PaletteCollection>(ReadRequest::get(url), policy);
        if let Some(case) = &stage {
            live::stage(case, read);
        }
        inner.replace(Some(read));
        view! { <p>{move || format!("{:?}", read.state.get())}</p> }
    });
    let read = slot.borrow().expect("the hook ran at mount");
    (read, handle)
}

/// A fresh run of scenario `id`, read by the hook under the case's policy (nothing staged) until
/// it stops, within 6 s; the run's prefix and how the read ended.
pub(crate) async fn run_to_stop(id: &str) -> (String, StopReport) {
    let case = case(id);
    let base = post_run(&case.id).await;
    let (read, _mounted) = mount_hook(palettes_url(&base, "coast"), case.client_policy(), None);
    let report = wait_for(Duration::from_secs(6), "the stop", || {
        report_of(&read.state.get_untracked())
    })
    .await;
    (base, report)
}

/// A new rate limit on the scenario API (`quota=…&window_s=…[&spent=…]`); returns its prefix.
pub(crate) async fn post_limit(query: &str) -> String {
    live::new_limit(api(), query)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What reached the limit: (arrival, collection, status), in order.
pub(crate) async fn limit_saw(base: &str) -> Vec<(Duration, String, u16)> {
    live::limit_requests(base)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|r| (r.arrived, r.collection, r.status))
        .collect()
}

/// Gives `scope` what its reads share: a run's own scope ([`embed`] names it after the run's
/// prefix, [`mount_hook`] after the URL), so that no other test's reads share it.
pub(crate) fn share(scope: &str, policy: ScopePolicy) {
    provide_scope_policy(scope, policy).unwrap_or_else(|e| panic!("{e}"));
}

/// `<PaletteList>` for `collection` on the API at `api_base`, as an app embeds it, with the
/// API (a limit of its own) as the scope: by default the scope is the origin, which every
/// limit on the scenario API shares, and one test's spent quota would hold back the next.
pub(crate) fn embed(
    api_base: &str,
    collection: &'static str,
    policy: RetryPolicy,
) -> (web_sys::HtmlElement, impl Drop) {
    let root = fresh_element();
    let api_base = api_base.to_owned();
    let policy = policy.with_scope(api_base.clone());
    let handle = mount_to(root.clone(), move || {
        view! { <PaletteList collection api_base policy /> }
    });
    (root, handle)
}

/// Another tab of this origin, as far as the page can tell: a second channel of the crate's
/// name, and every message it has heard. Closed when dropped.
pub(crate) struct OtherTab {
    pub(crate) channel: web_sys::BroadcastChannel,
    pub(crate) heard: Rc<RefCell<Vec<String>>>,
    pub(crate) _listener: wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
}

impl OtherTab {
    pub(crate) fn open() -> Self {
        let channel =
            web_sys::BroadcastChannel::new(leptos_retry_budget::runtime::CHANNEL).unwrap();
        let heard = Rc::new(RefCell::new(Vec::<String>::new()));
        let sink = heard.clone();
        let listener = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MessageEvent)>::new(
            move |e: web_sys::MessageEvent| sink.borrow_mut().extend(e.data().as_string()),
        );
        channel.set_onmessage(Some(listener.as_ref().unchecked_ref()));
        OtherTab {
            channel,
            heard,
            _listener: listener,
        }
    }
}

impl Drop for OtherTab {
    fn drop(&mut self) {
        self.channel.close();
    }
}

/// A token no other text on the page could contain by chance.
pub(crate) const MARKED: &str = "tok-7c1e-MARKED-d0c2";
