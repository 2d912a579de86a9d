//! What the reads come to, counted (feature `metrics`), read as a Prometheus exporter serves
//! them after runs whose answers are known.

use metrics_exporter_prometheus::PrometheusBuilder;
use retry_budget_tokio::{AllowedOrigins, Client, ReadRequest};

mod support;
use support::{policy, run, serve};

#[tokio::test]
async fn reads_attempts_blocks_and_waits_are_counted_as_they_went() {
    let recorder = PrometheusBuilder::new().build_recorder();
    let counted = recorder.handle();
    // This runtime's one thread runs every read here, so the recorder set for it counts them.
    let _recorder = metrics::set_default_local_recorder(&recorder);
    let origin = serve().await;
    let client = Client::new(AllowedOrigins::new([&origin]).unwrap());
    // A 429 asking 0 s, the 0.5 s floor waited, then the data.
    let quick = ReadRequest::get(run(&origin, "quick").await);
    client.read(&quick, policy(), |_| Ok(())).await.unwrap();
    // A read left while its attempt is in flight.
    let slow = ReadRequest::get(run(&origin, "slow").await);
    let left = client.read(&slow, policy(), |_| Ok(()));
    let _ = tokio::time::timeout(std::time::Duration::from_millis(200), left).await;
    // A 429 asking 30 s of a read with 10 s: stopped at once.
    let far = ReadRequest::get(run(&origin, "far").await);
    client.read(&far, policy(), |_| Ok(())).await.unwrap_err();
    let text = counted.render();
    for line in [
        "retry_budget_reads_total{outcome=\"succeeded\"} 1",
        "retry_budget_reads_total{outcome=\"budget_exhausted\"} 1",
        "retry_budget_attempts_total{status_class=\"4xx\"} 2",
        "retry_budget_attempts_total{status_class=\"2xx\"} 1",
        // The 30 s one; the 0 s one had ended as it was learned.
        "retry_budget_blocks_total{cause=\"429\"} 1",
        "retry_budget_reads_total{outcome=\"user_left\"} 1",
        "retry_budget_wait_seconds_count 1",
        "retry_budget_wait_asked_seconds_sum 0",
        "retry_budget_wait_asked_seconds_count 1",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line {line:?} in\n{text}"
        );
    }
    let waited = (text.lines())
        .find_map(|l| l.strip_prefix("retry_budget_wait_seconds_sum "))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no wait's sum in\n{text}"));
    assert!(
        (0.45..=0.55).contains(&waited),
        "the floor's 0.5 s: {waited}"
    );
    assert!(!text.contains(&origin), "a scope reached a label:\n{text}");
}
