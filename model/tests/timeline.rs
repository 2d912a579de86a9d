//! The timeline drawn from every fixture case's trace: where each element stands, and the
//! README's pictures as snapshots. Natively, and in wasm with the fixture files embedded.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use palette_list_model::{replay, Fixture, Replay};
use retry_budget::timeline::{BarAnswer, Timeline};
use retry_budget::Event;

mod common;

fn every_replay() -> Vec<Replay> {
    common::SINGLE_READS
        .iter()
        .flat_map(|t| Fixture::parse(t).unwrap().cases)
        .map(|c| replay(&c.unwrap()).unwrap())
        .collect()
}

#[test]
fn every_case_is_drawn_where_its_trace_says() {
    let all = every_replay();
    assert_eq!(all.len(), 14 + 17 + 4 + 9);
    for r in &all {
        let t = Timeline::from_trace(&r.trace, None).expect("a trace starts with its action");
        // One bar per attempt started, from its start; each cap hatch ends at start + cap.
        assert_eq!(
            t.attempts.iter().map(|a| a.start).collect::<Vec<_>>(),
            r.starts(),
            "{}",
            r.id
        );
        for a in &t.attempts {
            assert_eq!(a.cap_end, a.start + t.cap, "{}", r.id);
        }
        // Every bar that got an answer ends at that answer's receipt, in order.
        let answered: Vec<_> = t
            .attempts
            .iter()
            .filter(|a| matches!(a.answer, BarAnswer::Status { .. }))
            .map(|a| a.end.unwrap())
            .collect();
        assert_eq!(answered, r.receipts(), "{}", r.id);
        // One span per wait, ending where the replay says it ended.
        let waited: Vec<_> = t.waits.iter().map(|w| w.ended.unwrap() - w.from).collect();
        assert_eq!(waited, r.waits(), "{}", r.id);
        // The deadline stands at the budget, and the stop where the report says.
        assert_eq!(t.budget, r.budget, "{}", r.id);
        let stop = t.stop.as_ref().expect("every case stops");
        assert_eq!(
            (stop.at, stop.outcome),
            (r.report.at, r.report.outcome.kind())
        );
        let svg = t.to_svg(&r.id);
        assert_eq!(
            svg.matches(r#"data-kind="attempt""#).count(),
            r.starts().len()
        );
        assert_eq!(svg.matches(r#"data-kind="wait""#).count(), t.waits.len());
        let late = r
            .trace
            .iter()
            .filter(|e| matches!(e.event, Event::TimerWoke { late } if !late.is_zero()))
            .count();
        assert_eq!(svg.matches(r#"data-kind="late""#).count(), late, "{}", r.id);
        assert_eq!(svg.matches(r#"data-kind="deadline""#).count(), 1);
        let x = t.x(t.budget);
        assert!(
            svg.contains(&format!(r#"<g data-kind="deadline"><line x1="{x:.1}""#)),
            "{}",
            r.id
        );
    }
}

/// The README's three pictures are what the replay tool draws today
/// (`replay tests/fixtures/schedules.json --svg docs/timelines` writes them).
#[test]
fn the_readmes_pictures_are_current() {
    let pictures = [
        (
            "schedule-a-seconds",
            include_str!("../../docs/timelines/schedule-a-seconds.svg"),
        ),
        (
            "wait-exceeds-budget",
            include_str!("../../docs/timelines/wait-exceeds-budget.svg"),
        ),
        (
            "user-leaves-while-waiting",
            include_str!("../../docs/timelines/user-leaves-while-waiting.svg"),
        ),
    ];
    let all = every_replay();
    for (id, committed) in pictures {
        let r = all.iter().find(|r| r.id == id).unwrap();
        let drawn = Timeline::from_trace(&r.trace, None).unwrap().to_svg(id);
        assert_eq!(
            drawn, committed,
            "docs/timelines/{id}.svg is stale: redraw it with the replay tool's --svg"
        );
    }
}
