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
