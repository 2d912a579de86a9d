//! The server: renders the app with `leptos_axum`, serves the site's files (the hydrating
//! wasm under `pkg/`) and the rate-limited API. Configured as any Leptos server is
//! (`get_configuration(None)`: `LEPTOS_SITE_ADDR`, `LEPTOS_SITE_ROOT`, `LEPTOS_OUTPUT_NAME`, …).
//! `--stop-after SECONDS` stops it by itself; `--quota N --window-s S` set the API's limit
//! (default: 2 answers every 3 s); `--first-window open|spent` whether the first window has
//! its quota (default: spent, as if other clients had used it up); `--api-latency-ms MS` how
//! long each answer takes; `--in-flight-limit N` the most requests the renders send the API at
//! once (its scope's limit); `--baseline plain|classic` how the load bench's `/baseline` page
//! reads. `GET /stats` says how many scopes the renders' ledger holds; `GET /metrics` what the
//! renders' reads came to, in Prometheus text.

#[cfg(feature = "ssr")]
#[tokio::main]
async fn main() {
    use std::time::Duration;

    use axum::Router;
    use leptos::prelude::*;
    use leptos_axum::{generate_route_list, LeptosRoutes};
    use palette_list::{provide_server_reads, ReadRequest, ScopePolicy, ServerReads};
    use palette_list_ssr::api;
    use palette_list_ssr::app::{shell, App};
    use palette_list_ssr::baseline::BaselineReads;
    use retry_budget_redis::{RedisShare, ShareOptions};
    use retry_budget_tokio::{AllowedOrigins, Client};

    // What the reads and the Redis share say, on standard error: warnings (a stop without data,
    // a block learned, Redis away), and Redis back.
    {
        use tracing_subscriber::{filter::Targets, fmt, prelude::*};
        let said = Targets::new()
            .with_target("retry_budget_redis", tracing::Level::INFO)
            .with_default(tracing::Level::WARN);
        tracing_subscriber::registry()
            .with(fmt::layer().with_writer(std::io::stderr).with_ansi(false))
            .with(said)
            .init();
    }
    // What the reads come to, counted (the tokio and Redis crates' `metrics` feature) and
    // served at `/metrics`, as an exporter an operator's Prometheus scrapes.
    let counted = metrics_exporter_prometheus::PrometheusBuilder::new()
        .install_recorder()
        .expect("the first recorder of the process");
    let args = Args::read().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let conf =
        get_configuration(None).expect("the Leptos configuration is read from the environment");
    let options = conf.leptos_options;
    let listener = tokio::net::TcpListener::bind(&options.site_addr)
        .await
        .unwrap_or_else(|e| panic!("cannot listen on {}: {e}", options.site_addr));
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    // The renders read the API where the server reaches it (itself, or the process `--api`
    // names), with the headers the browser's request has: one client, so one ledger, for
    // every render. It may read nothing else, whatever a visitor's query names.
    let api_origin = (args.api.clone()).unwrap_or_else(|| format!("http://{addr}"));
    let allowed = AllowedOrigins::new([api_origin.as_str()]).expect("an http origin");
    let client = Client::new(allowed);
    if let Some(n) = args.in_flight_limit {
        let policy = ScopePolicy::new().with_in_flight_limit(n);
        client
            .scope_policy(&api_origin, policy)
            .expect("a valid scope policy");
    }
    // Replicas share their renders' ledger through Redis: a 429 one meets holds back the
    // others. Redis away (at start or later), each reads with its own, as the share says.
    if let Some(url) = &args.redis {
        // 250 ms rather than the default 100: a test machine busy with three replicas and a
        // browser may keep Redis's answer that long, and a render waits at most this.
        let options = ShareOptions::new().with_timeout(Duration::from_millis(250));
        match RedisShare::open(url, options) {
            Ok(share) => {
                let _ = share.connect().await;
                let _ = client.share_with(share);
            }
            Err(e) => eprintln!("--redis: {e}; this server reads with its own ledger"),
        }
    }
    let baseline = BaselineReads {
        http: reqwest::Client::new(),
        api: api_origin.clone(),
        retrier: args.baseline,
    };
    let ledger = client.clone();
    let reads = ServerReads::new(client, move |browser: &ReadRequest| {
        let on_server = ReadRequest::get(format!("{api_origin}{}", browser.url()));
        browser.headers().fold(on_server, |request, (name, value)| {
            request.with_header(name, value)
        })
    });
    let routes = generate_route_list(App);
    let api = match &args.api {
        Some(elsewhere) => palette_list_ssr::forward::router(elsewhere.clone()),
        None => api::router(
            args.quota,
            Duration::from_secs(args.window_s),
            args.first_open,
            Duration::from_millis(args.api_latency_ms),
        ),
    };
    let app = Router::new()
        .merge(api)
        .route(
            "/metrics",
            axum::routing::get(move || {
                let text = counted.render();
                async move { text }
            }),
        )
        .route(
            "/stats",
            axum::routing::get(move || {
                let scopes = ledger.known_scopes();
                async move { axum::Json(serde_json::json!({ "known_scopes": scopes })) }
            }),
        )
        .leptos_routes_with_context(
            &options,
            routes,
            move || {
                provide_server_reads(reads.clone());
                provide_context(baseline.clone());
            },
            {
                let options = options.clone();
                move || shell(options.clone())
            },
        )
        .fallback(leptos_axum::file_and_error_handler(shell))
        .with_state(options.clone());
    println!("listening on http://{addr}");
    let stop = async move {
        match args.stop_after {
            Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
            None => std::future::pending().await,
        }
    };
    axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(stop)
        .await
        .expect("the server runs");
}

/// The command line, as the crate's doc says.
#[cfg(feature = "ssr")]
struct Args {
    stop_after: Option<u64>,
    quota: u32,
    window_s: u64,
    first_open: bool,
    api_latency_ms: u64,
    in_flight_limit: Option<u32>,
    baseline: palette_list_ssr::baseline::Retrier,
    api: Option<String>,
    redis: Option<String>,
}

#[cfg(feature = "ssr")]
impl Args {
    fn read() -> Result<Args, String> {
        let mut args = Args {
            stop_after: None,
            quota: 2,
            window_s: 3,
            first_open: false,
            api_latency_ms: 0,
            in_flight_limit: None,
            baseline: palette_list_ssr::baseline::Retrier::Plain,
            api: None,
            redis: None,
        };
        let mut words = std::env::args().skip(1);
        while let Some(flag) = words.next() {
            let value = words
                .next()
                .ok_or_else(|| format!("{flag} needs a value"))?;
            let number = |min: u64| match value.parse::<u64>() {
                Ok(n) if n >= min => Ok(n),
                _ => Err(format!(
                    "{flag} {value:?}: give a whole number, at least {min}"
                )),
            };
            match flag.as_str() {
                "--stop-after" => args.stop_after = Some(number(1)?),
                "--quota" => {
                    args.quota = u32::try_from(number(1)?)
                        .map_err(|_| format!("{flag} {value:?}: at most {}", u32::MAX))?
                }
                "--window-s" => args.window_s = number(1)?,
                "--first-window" => {
                    args.first_open = match value.as_str() {
                        "open" => true,
                        "spent" => false,
                        _ => return Err(format!("{flag} {value:?}: give open or spent")),
                    }
                }
                "--api-latency-ms" => args.api_latency_ms = number(0)?,
                "--in-flight-limit" => {
                    args.in_flight_limit = Some(
                        u32::try_from(number(1)?)
                            .map_err(|_| format!("{flag} {value:?}: at most {}", u32::MAX))?,
                    )
                }
                "--baseline" => {
                    use palette_list_ssr::baseline::Retrier;
                    args.baseline = match value.as_str() {
                        "plain" => Retrier::Plain,
                        "classic" => Retrier::Classic,
                        _ => return Err(format!("{flag} {value:?}: give plain or classic")),
                    }
                }
                "--api" => {
                    let origin = value.trim_end_matches('/');
                    if !origin.starts_with("http://") || origin[7..].contains('/') {
                        return Err(format!(
                            "{flag} {value:?}: give an origin, http://host:port"
                        ));
                    }
                    args.api = Some(origin.to_owned());
                }
                "--redis" => args.redis = Some(value),
                other => {
                    return Err(format!(
                        "unknown argument {other:?} (expected --stop-after, --quota, --window-s, \
                         --first-window, --api-latency-ms, --in-flight-limit, --baseline, \
                         --api, --redis)"
                    ))
                }
            }
        }
        Ok(args)
    }
}

#[cfg(not(feature = "ssr"))]
fn main() {
    eprintln!("The server: build it with --features ssr (the lib is hydrated in the browser).");
}
