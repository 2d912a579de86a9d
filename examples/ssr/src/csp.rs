//! The page's Content-Security-Policy: scripts and styles from this origin only, plus the
//! hydration script by its nonce; no inline style, no other script. Set by the server on every
//! page it renders.

use axum::http::{header, HeaderValue};
use leptos::nonce::{provide_nonce, use_nonce};
use leptos::prelude::*;
use leptos_axum::ResponseOptions;

/// Makes this response's nonce (`HydrationScripts` puts it on its script) and sends the policy
/// that names it.
pub fn set_policy() {
    provide_nonce();
    let nonce = use_nonce().expect("provide_nonce has just provided one");
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'nonce-{nonce}'"
    );
    let value = HeaderValue::from_str(&policy).expect("a nonce is base64, so the policy is ASCII");
    expect_context::<ResponseOptions>().insert_header(header::CONTENT_SECURITY_POLICY, value);
}
