//! The hyper loop.

use axum::Router;

/// Serves `router` on `listener` until `stop` completes. HTTP/1.1 through hyper, with its
/// automatic `Date` header turned off: the scenarios decide when the client has clock evidence.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let service = hyper_util::service::TowerToHyperService::new(router);
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            () = &mut stop => return Ok(()),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection the client drops mid-answer is an ordinary end here.
            let _ = hyper::server::conn::http1::Builder::new()
                .auto_date_header(false)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// Serves `router` on a free port of 127.0.0.1, in a task of the current tokio runtime, for as
/// long as the runtime runs: the API a test, an example or a bench starts in its own process.
/// Its origin, `http://127.0.0.1:PORT`.
pub async fn serve_on_loopback(router: Router) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let origin = format!("http://{}", listener.local_addr()?);
    tokio::spawn(serve(listener, router, std::future::pending()));
    Ok(origin)
}
