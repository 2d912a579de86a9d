//! The budget in any Rust service that sends through `reqwest-middleware`, against the
//! scenario API on loopback (in this process): one `GET` whose first answer is a `429` asking
//! 1 s, then one whose `429` asks 30 s of a read with 20 s, with the tracing a subscriber
//! writes for each.
//!
//! ```text
//! cargo run -p retry-budget-tokio --example middleware
//! ```

use retry_budget_tokio::{AllowedOrigins, Budget, Client, RetryPolicy, Stopped};
use tracing::Level;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::{fmt, prelude::*};

/// Two runs the scenario API plays: a 429 asking 1 s, then the data; a 429 asking 30 s.
const SCENARIOS: &str = r##"{
  "policy": { "budget_s": 20, "max_attempts": 3, "attempt_cap_s": 5, "retry_statuses": [429, 503],
              "min_wait_s": 0.5, "fallback_waits_s": [1] },
  "request": { "method": "GET", "path": "/palettes", "query": { "collection": "coast" } },
  "cases": [
    { "id": "one-second", "attempts": [
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "1" } },
        { "duration_s": 0.05, "status": 200, "body": "coast" } ] },
    { "id": "thirty-seconds", "attempts": [
        { "duration_s": 0.05, "status": 429, "headers": { "Retry-After": "30" } } ] }
  ],
  "bodies": { "coast": { "collection": "coast", "palettes": [ { "id": "a", "name": "A", "colors": ["#000000"] } ] } }
}"##;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The budget's own events from DEBUG on, everyone else's warnings.
    let ours = Targets::new()
        .with_target("retry_budget_tokio", Level::DEBUG)
        .with_default(Level::WARN);
    tracing_subscriber::registry()
        .with(fmt::layer().with_target(false).with_ansi(false))
        .with(ours)
        .init();
    let origin = serve().await?;

    // One `Client` per process: its ledger is every read's, the middleware's among them.
    let allowed = AllowedOrigins::new([&origin])?;
    let budget = Budget::new(Client::new(allowed.clone()), RetryPolicy::new());
    let http = reqwest::Client::builder()
        .redirect(allowed.redirect_policy())
        .build()?;
    let http = reqwest_middleware::ClientBuilder::new(http)
        .with(budget)
        .build();

    for case in ["one-second", "thirty-seconds"] {
        let url = run(&origin, case).await?;
        println!("\nGET {case}:");
        match http.get(&url).send().await {
            Ok(response) => println!("{}: {}", response.status(), response.text().await?),
            Err(e) => match Stopped::of(&e) {
                // Out of attempts or time: the report says why; the last response is there.
                Some(stopped) => println!("stopped: {}", stopped.record.report.message()),
                None => println!("not read: {e}"),
            },
        }
    }
    Ok(())
}

/// The scenario API on a free loopback port, in this process; its origin.
async fn serve() -> Result<String, Box<dyn std::error::Error>> {
    let scenarios = scenario_api::Scenarios::new(vec![SCENARIOS.to_owned()])?;
    Ok(scenario_api::serve_on_loopback(scenarios.router()).await?)
}

/// A new run of `case`; the URL of its palettes.
async fn run(origin: &str, case: &str) -> Result<String, Box<dyn std::error::Error>> {
    let made = reqwest::Client::new()
        .post(format!("{origin}/runs?scenario={case}"))
        .send()
        .await?
        .bytes()
        .await?;
    let made: serde_json::Value = serde_json::from_slice(&made)?;
    let base = made["base"]
        .as_str()
        .ok_or("the scenario API gave no base")?;
    Ok(format!("{origin}{base}/palettes?collection=coast"))
}
