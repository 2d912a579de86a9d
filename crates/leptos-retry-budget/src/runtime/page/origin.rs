//! Origins as the page sees them: a read's default scope, and whether an answer crossed origins
//! (so CORS may hide its headers).

/// The origin of `url` read relative to the page (`https://api.example.com`): the default scope.
/// A URL that does not parse is its own scope (its fetch fails on the network anyway).
pub(super) fn origin(url: &str) -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|page| web_sys::Url::new_with_base(url, &page).ok())
        .map_or_else(|| url.to_owned(), |u| u.origin())
}

/// Whether `url` is on another origin than the page (so CORS may hide `Retry-After`).
pub(super) fn is_cross_origin(url: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .is_some_and(|page| crosses_origin(url, &page))
}

/// Whether `url`, read relative to the page at `page`, is on another origin than the page.
fn crosses_origin(url: &str, page: &str) -> bool {
    match (
        web_sys::Url::new_with_base(url, page),
        web_sys::Url::new(page),
    ) {
        (Ok(u), Ok(p)) => u.origin() != p.origin(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_default_scope_is_the_apis_origin() {
        let page = web_sys::window().unwrap().location().origin().unwrap();
        assert_eq!(origin("/api/palettes?collection=coast"), page);
        assert_eq!(
            origin("http://127.0.0.1:3031/limits/1/palettes?collection=dune"),
            "http://127.0.0.1:3031"
        );
        assert_eq!(
            origin("http://[::1"),
            "http://[::1",
            "a URL that does not parse is its own"
        );
    }

    #[test]
    fn the_origin_is_the_answers_own() {
        let page = "http://127.0.0.1:8080/app/";
        // A request to the page's origin that a redirect took elsewhere: what the answer's
        // final URL says is what counts (the runtime passes `Response::url`).
        assert!(crosses_origin("http://localhost:8080/palettes", page));
        assert!(crosses_origin("https://127.0.0.1:8080/palettes", page));
        assert!(crosses_origin("http://127.0.0.1:3031/palettes", page));
        assert!(!crosses_origin("/api/palettes?collection=coast", page));
        assert!(!crosses_origin("http://127.0.0.1:8080/api/palettes", page));
    }
}
