//! Leptos 0.8 (tachys 0.2, hydration_context 0.3): what the crate takes from Leptos that 0.9
//! gives another way. `v0_9.rs` holds the same three items for Leptos 0.9.

use hydration_context::{SerializedDataId, SharedContext};
use leptos::prelude::*;

/// The id the next piece of data a render hands to the browser is written and found under,
/// taken as Leptos's own resources take theirs: the shared context's next.
#[allow(dead_code, reason = "a csr page hands nothing over")]
pub(crate) fn next_data_id(context: &(dyn SharedContext + Send + Sync)) -> SerializedDataId {
    context.next_id()
}

/// `children`, made where a server's `<Suspense>` was made, in a browser that compiles none:
/// the boundary's id taken as Leptos 0.8's takes it (the shared context's next); nothing
/// inside the boundary is numbered apart.
#[allow(dead_code, reason = "used by a hydrating page")]
pub(crate) fn in_place_of_suspense<V: IntoView>(children: impl FnOnce() -> V) -> impl IntoView {
    if let Some(context) = Owner::current_shared_context() {
        let _boundary = next_data_id(&*context);
    }
    children()
}

/// `RenderHtml`'s two methods that write HTML, handed to the view inside (`self.0`): tachys
/// 0.2 takes `escape` and `mark_branches` where 0.3 takes them as one `RenderFlags`.
macro_rules! render_html_into_buf {
    () => {
        fn to_html_with_buf(
            self,
            buf: &mut String,
            position: &mut ::leptos::tachys::view::Position,
            escape: bool,
            mark_branches: bool,
            extra_attrs: Vec<::leptos::tachys::html::attribute::any_attribute::AnyAttribute>,
        ) {
            self.0
                .to_html_with_buf(buf, position, escape, mark_branches, extra_attrs);
        }

        fn to_html_async_with_buf<const OUT_OF_ORDER: bool>(
            self,
            buf: &mut ::leptos::tachys::ssr::StreamBuilder,
            position: &mut ::leptos::tachys::view::Position,
            escape: bool,
            mark_branches: bool,
            extra_attrs: Vec<::leptos::tachys::html::attribute::any_attribute::AnyAttribute>,
        ) where
            Self: Sized,
        {
            self.0.to_html_async_with_buf::<OUT_OF_ORDER>(
                buf,
                position,
                escape,
                mark_branches,
                extra_attrs,
            );
        }
    };
}
pub(crate) use render_html_into_buf;
