//! Timer fidelity and wakes of the real browser runtime, measured in the page (see
//! `index.html`, which counts timer callbacks and answers the bench's reads before the wasm
//! starts). Writes its figures as JSON into `<pre id="results">` for `bench/run.mjs`.
//!
//! 1. Fidelity: reads whose 200 waits in all are planned by the policy (fallback waits, 50 ms
//!    to 2 s, no floor), every answer a 429 at once; each attempt's lateness against its
//!    planned start is the core's own `TimerWoke`. Beside them, a bare `setTimeout` chain of the
//!    same delays. The two take turns, a quarter of the delays at a time, so that neither has
//!    the page's quieter minutes to itself.
//! 2. Wakes: one read that waits 10 s; timer callbacks, signal writes and live-region changes
//!    counted from the wait's start to its end.

#[cfg(target_arch = "wasm32")]
fn main() {
    wasm_bindgen_futures::spawn_local(bench::run());
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("A browser app: scripts/bench.sh builds and runs it.");
    std::process::exit(2);
}

#[cfg(target_arch = "wasm32")]
mod bench {
    use std::borrow::Cow;
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::Duration;

    use leptos::prelude::*;
    use palette_list::palettes::PaletteCollection;
    use palette_list::{
        use_budgeted_read, BudgetedRead, PaletteListView, ReadRequest, ReadState, RetryPolicy,
    };
    use retry_budget::Event;
    use serde_json::json;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    /// How many planned waits the fidelity run plays.
    const WAITS: usize = 200;

    /// How many turns the runtime and the bare chain take, each playing as many of the delays.
    const TURNS: usize = 4;

    /// 200 delays from 50 ms to 2 s, spread evenly on a log scale, in a seeded random order.
    fn delays() -> Vec<u32> {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..WAITS)
            .map(|_| {
                let u = (next() % 1_000_000) as f64 / 1_000_000.0;
                (50.0 * 40f64.powf(u)).round() as u32
            })
            .collect()
    }

    fn global(name: &str) -> JsValue {
        js_sys::Reflect::get(&js_sys::global(), &name.into()).unwrap_or(JsValue::UNDEFINED)
    }

    fn counter(name: &str) -> f64 {
        js_sys::Reflect::get(&global("__bench"), &name.into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN)
    }

    /// Mounts a Palette List view on a read of the in-page answer source under `policy`; returns
    /// the read. The mount lives until the page closes.
    fn mount(policy: RetryPolicy) -> BudgetedRead<PaletteCollection> {
        let slot = Rc::new(Cell::new(None));
        let inner = slot.clone();
        // Mounted for good: mount_to_body keeps the view for the page's life.
        mount_to_body(move || {
            let read = use_budgeted_read(
                ReadRequest::get("/bench-api/palettes?collection=bench"),
                policy.clone(),
                PaletteCollection::from_json,
            );
            inner.set(Some(read));
            view! { <PaletteListView read collection="bench" /> }
        });
        slot.take().expect("the hook ran at mount")
    }

    /// Resolves when `done` holds for the read's state, without arming a timer of its own
    /// (an effect resolves a promise), so the wakes it watches are the runtime's alone.
    async fn until(
        read: BudgetedRead<PaletteCollection>,
        done: fn(&ReadState<PaletteCollection>) -> bool,
    ) {
        let resolve = Rc::new(Cell::new(None::<js_sys::Function>));
        let promise = {
            let resolve = resolve.clone();
            js_sys::Promise::new(&mut move |ok, _| resolve.set(Some(ok)))
        };
        let effect = Effect::new(move |_| {
            if read.state.with(done) {
                if let Some(ok) = resolve.take() {
                    let _ = ok.call0(&JsValue::NULL);
                }
            }
        });
        let _ = JsFuture::from(promise).await;
        effect.stop();
    }

    fn quantiles(mut ms: Vec<f64>) -> serde_json::Value {
        if ms.is_empty() {
            return json!({"n": 0});
        }
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
        json!({"n": ms.len(), "p50": at(0.5), "p99": at(0.99), "max": ms[ms.len() - 1]})
    }

    /// 1a. The runtime: one read whose waits are `delays`, as the policy's fallback waits with
    /// no floor; each attempt start's lateness, in ms.
    async fn play(delays: &[u32]) -> Vec<f64> {
        let waits: Vec<Duration> = delays
            .iter()
            .map(|d| Duration::from_millis(u64::from(*d)))
            .collect();
        let policy = RetryPolicy::new()
            .with_budget(Duration::from_secs(3_600))
            .with_max_attempts(delays.len() as u32 + 1)
            .with_attempt_cap(Duration::from_secs(5))
            .with_min_wait(Duration::ZERO)
            .with_fallback_waits(Cow::Owned(waits));
        let read = mount(policy);
        until(read, |s| {
            matches!(s, ReadState::Stopped(_) | ReadState::Refused(_))
        })
        .await;
        read.trace_untracked()
            .iter()
            .filter_map(|e| match e.event {
                Event::TimerWoke { late } => Some(late.as_secs_f64() * 1000.0),
                _ => None,
            })
            .collect()
    }

    /// 1b. The baseline: the same delays as a bare `setTimeout` chain, in the same page.
    async fn bare_chain(delays: &[u32]) -> Vec<f64> {
        let chain: js_sys::Function = global("__bareChain").unchecked_into();
        let list = js_sys::Array::from_iter(delays.iter().map(|d| JsValue::from(*d)));
        let late = match chain.call1(&JsValue::NULL, &list) {
            Ok(p) => JsFuture::from(js_sys::Promise::from(p)).await.ok(),
            Err(_) => None,
        };
        late.map(|v| {
            js_sys::Array::from(&v)
                .iter()
                .filter_map(|x| x.as_f64())
                .collect()
        })
        .unwrap_or_default()
    }

    pub async fn run() {
        let delays = delays();
        let (mut runtime, mut bare) = (Vec::new(), Vec::new());
        for turn in delays.chunks(WAITS / TURNS) {
            runtime.extend(play(turn).await);
            bare.extend(bare_chain(turn).await);
        }

        // 2. Wakes during one 10 s wait.
        let policy = RetryPolicy::new()
            .with_max_attempts(2)
            .with_min_wait(Duration::ZERO)
            .with_fallback_waits(vec![Duration::from_secs(10)]);
        let read = mount(policy);
        until(read, |s| matches!(s, ReadState::Waiting { .. })).await;
        let _ = js_sys::Function::from(global("__watchAnnouncer")).call0(&JsValue::NULL);
        let writes = Rc::new(Cell::new(0u32));
        let count = |w: &Rc<Cell<u32>>| {
            let w = w.clone();
            move |first: Option<()>| {
                if first.is_some() {
                    w.set(w.get() + 1);
                }
            }
        };
        let on_state = count(&writes);
        let on_trace = count(&writes);
        let on_clock = count(&writes);
        let effects = [
            Effect::new(move |p| {
                read.state.track();
                on_state(p)
            }),
            Effect::new(move |p| {
                read.traced.track();
                on_trace(p)
            }),
            Effect::new(move |p| {
                read.clock.track();
                on_clock(p)
            }),
        ];
        let (t0, callbacks0) = (leptos_retry_budget::runtime::now(), counter("callbacks"));
        until(read, |s| !matches!(s, ReadState::Waiting { .. })).await;
        let seconds = (leptos_retry_budget::runtime::now() - t0).as_secs_f64();
        let callbacks = counter("callbacks") - callbacks0;
        for e in effects {
            e.stop();
        }
        let announced = global("__announced").as_f64().unwrap_or(f64::NAN);
        // The floor: one wake per change of the whole seconds shown (10 s reads 10, 9, … 1: nine
        // changes), plus the core's one timer at the wait's end.
        let floor = 9 + 1;

        let results = json!({
            "fidelity": {
                "delays_ms": {"n": delays.len(), "min": delays.iter().min(), "max": delays.iter().max(),
                              "sum": delays.iter().map(|d| u64::from(*d)).sum::<u64>()},
                "runtime": quantiles(runtime),
                "bare_set_timeout": quantiles(bare),
            },
            "wakes": {
                "wait_s": seconds,
                "timer_callbacks": callbacks,
                "signal_writes": writes.get(),
                "live_region_changes": announced,
                "floor_callbacks": floor,
            },
        });
        let pre = document().create_element("pre").expect("a pre");
        pre.set_id("results");
        pre.set_text_content(Some(&results.to_string()));
        let _ = document().body().expect("a body").append_child(&pre);
    }
}
