//! Leptos 0.9 (tachys 0.3, hydration_context 0.4): what the crate takes from Leptos that 0.8
//! gives another way. `v0_8.rs` holds the same three items for Leptos 0.8.

use hydration_context::{SerializedDataId, SerializedDataIdScope, SharedContext};
use leptos::prelude::*;
use leptos::tachys::reactive_graph::OwnedView;

/// The id the next piece of data a render hands to the browser is written and found under,
/// taken as Leptos's own resources take theirs: within the `<Suspense>` around it, if any
/// (ids such as `3-0`), else the shared context's next.
#[allow(dead_code, reason = "a csr page hands nothing over")]
pub(crate) fn next_data_id(context: &(dyn SharedContext + Send + Sync)) -> SerializedDataId {
    Owner::next_serialized_data_id(context)
}

/// `children`, made where a server's `<Suspense>` was made, in a browser that compiles none:
/// the boundary's id taken as Leptos 0.9's takes it, and what is inside it numbered within
/// that id, under an owner of its own, as inside the server's boundary.
#[allow(dead_code, reason = "used by a hydrating page")]
pub(crate) fn in_place_of_suspense<V: IntoView>(children: impl FnOnce() -> V) -> impl IntoView {
    let owner = Owner::new();
    let view = owner.with(|| {
        if let Some(context) = Owner::current_shared_context() {
            let boundary = next_data_id(&*context);
            provide_context(SerializedDataIdScope::new(boundary));
        }
        children()
    });
    OwnedView::new_with_owner(view, owner)
}

/// `RenderHtml`'s two methods that write HTML, handed to the view inside (`self.0`): tachys
/// 0.3 takes one `RenderFlags` where 0.2 takes `escape` and `mark_branches`.
macro_rules! render_html_into_buf {
    () => {
        fn to_html_with_buf(
            self,
            buf: &mut String,
            position: &mut ::leptos::tachys::view::Position,
            flags: ::leptos::tachys::view::RenderFlags,
            extra_attrs: Vec<::leptos::tachys::html::attribute::any_attribute::AnyAttribute>,
        ) {
            self.0.to_html_with_buf(buf, position, flags, extra_attrs);
        }

        fn to_html_async_with_buf<const OUT_OF_ORDER: bool>(
            self,
            buf: &mut ::leptos::tachys::ssr::StreamBuilder,
            position: &mut ::leptos::tachys::view::Position,
            flags: ::leptos::tachys::view::RenderFlags,
            extra_attrs: Vec<::leptos::tachys::html::attribute::any_attribute::AnyAttribute>,
        ) where
            Self: Sized,
        {
            self.0
                .to_html_async_with_buf::<OUT_OF_ORDER>(buf, position, flags, extra_attrs);
        }
    };
}
pub(crate) use render_html_into_buf;
