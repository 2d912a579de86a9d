//! `scenario-api [--port N] [--fixtures FILE]... [--static DIR] [--stop-after SECONDS]`
//!
//! Serves the scenarios of one or more fixture files (at least one `--fixtures`, e.g. the
//! project's `tests/fixtures/schedules.json`) on 127.0.0.1 (port 0 picks a free one) and prints
//! `listening on http://127.0.0.1:PORT` once it accepts connections. Stops on Ctrl-C, or by
//! itself after `--stop-after` seconds. With `--static DIR` (a `trunk build` output) the app is
//! served at `/` and the API moves under `/api`, on the same origin.

use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str =
    "usage: scenario-api [--port N] [--fixtures FILE]... [--static DIR] [--stop-after SECONDS]";

fn main() -> ExitCode {
    let mut port: u16 = 0;
    let mut fixtures: Vec<String> = Vec::new();
    let mut stop_after: Option<Duration> = None;
    let mut static_dir: Option<std::path::PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let parsed = match arg.as_str() {
            "--port" => value("--port").and_then(|v| {
                v.parse()
                    .map(|p| port = p)
                    .map_err(|_| format!("--port {v:?} is not a port number"))
            }),
            "--fixtures" => value("--fixtures").map(|v| fixtures.push(v)),
            "--static" => value("--static").and_then(|v| {
                let dir = std::path::PathBuf::from(&v);
                if dir.join("index.html").is_file() {
                    static_dir = Some(dir);
                    Ok(())
                } else {
                    Err(format!(
                        "--static {v:?} has no index.html (build it with trunk build --release)"
                    ))
                }
            }),
            "--stop-after" => value("--stop-after").and_then(|v| {
                v.parse::<u64>()
                    .map(|s| stop_after = Some(Duration::from_secs(s)))
                    .map_err(|_| format!("--stop-after {v:?} is not a whole number of seconds"))
            }),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => Err(format!("unknown argument {other:?}")),
        };
        if let Err(e) = parsed {
            eprintln!("scenario-api: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if fixtures.is_empty() {
        eprintln!(
            "scenario-api: no --fixtures given (e.g. --fixtures tests/fixtures/schedules.json)\n{USAGE}"
        );
        return ExitCode::from(2);
    }
    let mut texts = Vec::new();
    for path in &fixtures {
        match std::fs::read_to_string(path) {
            Ok(t) => texts.push(t),
            Err(e) => {
                eprintln!("scenario-api: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let scenarios = match scenario_api::Scenarios::new(texts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scenario-api: {e} (files: {})", fixtures.join(", "));
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("scenario-api: cannot listen on 127.0.0.1:{port}: {e}");
                return ExitCode::from(1);
            }
        };
        let addr = listener.local_addr().expect("a bound address");
        println!("listening on http://{addr}");
        let stop = async move {
            match stop_after {
                Some(d) => tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = tokio::time::sleep(d) => eprintln!("scenario-api: stopping after {} s", d.as_secs()),
                },
                None => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        };
        let router = match static_dir {
            Some(dir) => scenario_api::with_static(scenarios.router(), dir),
            None => scenarios.router(),
        };
        match scenario_api::serve(listener, router, stop).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("scenario-api: {e}");
                ExitCode::from(1)
            }
        }
    })
}
