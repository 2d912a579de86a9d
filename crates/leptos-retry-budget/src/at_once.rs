//! [`HydratesAtOnce`]: a view whose async hydration is its hydration.
//!
//! A Leptos router erases each route's view into an `AnyView`, and an `AnyView` carries an
//! async hydration of its view, compiled whether or not anything calls it: for a route with a
//! screen on it, a second hydration of the whole screen, element by element, as a future
//! (about 17 KB of wasm before `wasm-opt`, measured with twiggy on `bench/ssr`), and a type
//! deep enough to pass the compiler's default recursion limit. `leptos_router` 0.8 hydrates a
//! matched route's view at once (after loading any lazy route's code), so that future is not
//! what it runs; where something does await it (a lazy view around the screen), the screen's
//! own views, which load nothing lazily, are hydrated at once inside it. Leptos 0.9 (tachys
//! 0.3) compiles that future into an `AnyView` only where the app turns on `leptos/lazy`;
//! elsewhere the wrapper changes nothing. Everything else is the view's own.

use leptos::tachys::html::attribute::Attribute;
use leptos::tachys::hydration::Cursor;
use leptos::tachys::view::add_attr::AddAnyAttr;
use leptos::tachys::view::{PositionState, Render, RenderHtml};

/// `view`, hydrated at once where an app hydrates asynchronously (a router's lazy routes).
/// Wrap views that load nothing lazily, never an app's children, which might.
#[derive(Debug, Clone)]
pub struct HydratesAtOnce<V>(pub V);

impl<V: Render> Render for HydratesAtOnce<V> {
    type State = V::State;

    fn build(self) -> Self::State {
        self.0.build()
    }

    fn rebuild(self, state: &mut Self::State) {
        self.0.rebuild(state);
    }
}

impl<V: AddAnyAttr> AddAnyAttr for HydratesAtOnce<V> {
    type Output<SomeNewAttr: Attribute> = HydratesAtOnce<V::Output<SomeNewAttr>>;

    fn add_any_attr<NewAttr: Attribute>(self, attr: NewAttr) -> Self::Output<NewAttr>
    where
        Self::Output<NewAttr>: RenderHtml,
    {
        HydratesAtOnce(self.0.add_any_attr(attr))
    }
}

impl<V: RenderHtml> RenderHtml for HydratesAtOnce<V> {
    type AsyncOutput = HydratesAtOnce<V::AsyncOutput>;
    type Owned = HydratesAtOnce<V::Owned>;

    const MIN_LENGTH: usize = V::MIN_LENGTH;
    const EXISTS: bool = V::EXISTS;

    fn dry_resolve(&mut self) {
        self.0.dry_resolve();
    }

    async fn resolve(self) -> Self::AsyncOutput {
        HydratesAtOnce(self.0.resolve().await)
    }

    fn html_len(&self) -> usize {
        self.0.html_len()
    }

    // The two that write HTML, as the Leptos line built against takes them.
    crate::leptos_line::render_html_into_buf!();

    fn hydrate<const FROM_SERVER: bool>(
        self,
        cursor: &Cursor,
        position: &PositionState,
    ) -> Self::State {
        self.0.hydrate::<FROM_SERVER>(cursor, position)
    }

    // `hydrate_async` is the trait's own: `hydrate`, at once, in a future.

    fn into_owned(self) -> Self::Owned {
        HydratesAtOnce(self.0.into_owned())
    }
}
