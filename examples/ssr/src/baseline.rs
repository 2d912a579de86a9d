//! The page the load bench compares the screens against (`/baseline`): the same palettes, read
//! on the server by a plain Leptos resource per render, with no budget and no shared ledger,
//! as an app without this crate would: one request (`plain`), or a classic retrier that waits
//! 2 s, then 4 s, whatever the API asked (`classic`). The server chooses with `--baseline`.

use leptos::prelude::*;
use palette_list::palettes::PaletteCollection;
use palette_list::PaletteGrid;

/// How the baseline page reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retrier {
    /// One request per read.
    Plain,
    /// Up to three requests per read, 2 s and then 4 s apart, on a `429`, a `5xx` or a failure.
    Classic,
}

/// What the baseline page's reads need on the server: a client, the API's origin and the
/// retrier. Given to every render as context.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub struct BaselineReads {
    /// The server's HTTP client.
    pub http: reqwest::Client,
    /// Where the API is, as the server reaches it.
    pub api: String,
    /// How it retries.
    pub retrier: Retrier,
}

/// The baseline page: the two collections the screens read, each in its own `<Suspense>`.
#[component]
pub fn Baseline() -> impl IntoView {
    view! {
        <h1>"Palettes"</h1>
        <BaselineList collection="coast" />
        <BaselineList collection="dune" />
    }
}

/// One collection, read once per render on the server and shown, or the failure's status.
#[component]
fn BaselineList(collection: &'static str) -> impl IntoView {
    #[cfg(feature = "ssr")]
    let reads = use_context::<BaselineReads>();
    let palettes = Resource::new(
        || (),
        move |()| {
            #[cfg(feature = "ssr")]
            {
                let reads = reads.clone();
                async move {
                    match reads {
                        Some(reads) => read(reads, collection).await,
                        None => Err("this server has no baseline reads".to_owned()),
                    }
                }
            }
            #[cfg(not(feature = "ssr"))]
            std::future::ready(Err::<PaletteCollection, _>(
                "the baseline reads on the server only".to_owned(),
            ))
        },
    );
    view! {
        <section class="palette-list" data-testid="baseline">
            <h2>{format!("Palettes: {collection}")}</h2>
            <Suspense fallback=|| view! { <p>"Loading"</p> }>
                {move || Suspend::new(async move {
                    match palettes.await {
                        Ok(data) => view! { <PaletteGrid palettes=data.palettes /> }.into_any(),
                        Err(why) => view! { <p data-testid="baseline-failed">{why}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// Reads `collection` from the API as the retrier does.
#[cfg(feature = "ssr")]
async fn read(reads: BaselineReads, collection: &str) -> Result<PaletteCollection, String> {
    let url = format!("{}/api/palettes?collection={collection}", reads.api);
    let waits: &[u64] = match reads.retrier {
        Retrier::Plain => &[0],
        Retrier::Classic => &[0, 2, 4],
    };
    let mut last = String::new();
    for wait in waits {
        tokio::time::sleep(std::time::Duration::from_secs(*wait)).await;
        match reads.http.get(&url).send().await {
            Ok(answer) if answer.status().is_success() => {
                let body = answer.bytes().await.map_err(|e| e.to_string())?;
                return PaletteCollection::from_json(&body).map_err(|e| e.to_string());
            }
            Ok(answer) if answer.status() == 429 || answer.status().is_server_error() => {
                last = answer.status().to_string();
            }
            Ok(answer) => return Err(answer.status().to_string()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}
