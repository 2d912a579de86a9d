//! The Palette List screen in French: the same read, the same data and the same rules, with the
//! app's own words written from the facts the core gives (the state, the outcome with its own
//! facts, the last response). Every `match` is exhaustive, so a new outcome or wait reason does
//! not compile until it has its words here.
//!
//! In the browser (`wasm32-unknown-unknown`) it mounts the screen; natively it renders the
//! screen's first state on the server and prints the HTML. `cargo test --example in_french`
//! checks the words.

use std::time::Duration;

use leptos::prelude::*;
use leptos_retry_budget::runtime::Misconfigured;
use palette_list::palettes::{palettes_url, PaletteCollection};
use palette_list::{use_budgeted_read, PaletteGrid, ReadRequest, ReadState, RetryPolicy};
use retry_budget::action::WaitReason;
use retry_budget::body::BodyProblem;
use retry_budget::report::{Cancelled, HeldBy, Overrun, TransportFailure};
use retry_budget::scope::BlockCause;
use retry_budget::words::{seconds_text, Precision};
use retry_budget::{Outcome, StopReport};

/// The Palette List in French: reads `{api_base}/palettes?collection={collection}` under the
/// default budget and says what happens in French.
#[component]
fn ListeDePalettes(
    /// The collection to read.
    #[prop(into)]
    collection: String,
    /// Where the API lives (default: this origin).
    #[prop(optional, into)]
    api_base: String,
) -> impl IntoView {
    let request = ReadRequest::get(palettes_url(&api_base, &collection));
    let read = use_budgeted_read(request, RetryPolicy::new(), PaletteCollection::from_json);
    let running = move || read.state.with(ReadState::is_running);
    let lines = move || {
        read.state.with(|state| match state {
            ReadState::Loaded { data, report } => view! {
                <PaletteGrid palettes=data.palettes.clone() />
                <p>{derniere_reponse(report)}</p>
            }
            .into_any(),
            state => etat(state, read.clock.get())
                .into_iter()
                .map(|line| view! { <p>{line}</p> })
                .collect_view()
                .into_any(),
        })
    };
    view! {
        <section lang="fr">
            <h2>{format!("Palettes : {collection}")}</h2>
            <button on:click=move |_| if running() { read.cancel() } else { read.try_again() }>
                {move || if running() { "Annuler" } else { "Réessayer" }}
            </button>
            <div aria-live="polite">{lines}</div>
        </section>
    }
}

/// What the screen says in `state` but once loaded, line by line; `now` is the runtime's clock,
/// for the countdown.
fn etat(state: &ReadState<PaletteCollection>, now: Duration) -> Vec<String> {
    match state {
        ReadState::Loading { attempt, of } => vec![format!("Tentative {attempt} sur {of}")],
        ReadState::Waiting {
            next,
            of,
            until,
            reason,
        } => {
            let left = until.saturating_sub(now).as_millis().div_ceil(1000);
            vec![
                format!("Tentative {next} sur {of} dans {left} s"),
                pourquoi_attendre(reason),
            ]
        }
        ReadState::Queued { next, of, limit } => vec![format!(
            "La tentative {next} sur {of} attend son tour. {}",
            en_cours(*limit)
        )],
        ReadState::Loaded { report, .. } | ReadState::Stopped(report) => message(report),
        ReadState::Refused(Misconfigured::Policy(e)) => vec![mal_configuree(e)],
        ReadState::Refused(Misconfigured::Request(e)) => vec![mal_configuree(e)],
        ReadState::Refused(Misconfigured::FromServer(refusal)) => match refusal.hand_over_error() {
            Some(e) => vec![mal_configuree(e)],
            None => vec![
                "Le serveur a refusé d'envoyer cette lecture (son journal dit pourquoi) ; rien \
                 n'a été envoyé."
                    .into(),
            ],
        },
    }
}

/// A read that could not start; the detail, for the developer, is the library's own.
fn mal_configuree(detail: &dyn std::fmt::Display) -> String {
    format!("Cette lecture est mal configurée ({detail}) ; rien n'a été envoyé.")
}

/// The stop message: the outcome, the last response, then what happened to the next request.
fn message(r: &StopReport) -> Vec<String> {
    let mut lines = vec![titre(r), derniere_reponse(r)];
    lines.extend(detail(r));
    lines
}

/// The first line: how the read ended.
fn titre(r: &StopReport) -> String {
    match r.outcome {
        Outcome::Succeeded => "Chargé.".into(),
        Outcome::BudgetExhausted(Overrun::Scope(HeldBy::MaxWaiting { .. })) => {
            "Arrêté : trop de lectures attendent déjà cette API.".into()
        }
        Outcome::BudgetExhausted(_) => "Arrêté : le budget ne permet pas une autre requête.".into(),
        Outcome::AttemptsExhausted => format!(
            "Arrêté : les {} tentatives ont toutes été utilisées.",
            r.max_attempts
        ),
        Outcome::UserLeft { .. } => "Arrêté : vous êtes parti avant la fin de la lecture.".into(),
        Outcome::ClockUntrusted { .. } => "Arrêté : le service a indiqué une heure de reprise \
                                           qu'aucune horloge fiable ne permet de lire."
            .into(),
        Outcome::NonRetryableResponse { status } => {
            format!("Arrêté : le service a répondu {status}, qui n'est pas retenté.")
        }
        Outcome::TransportFailure(_) => "Arrêté : la requête a échoué avant toute réponse.".into(),
        Outcome::AttemptTimedOut { cap } => {
            format!("Arrêté : le service n'a pas répondu en {}.", secondes(cap))
        }
        Outcome::UnreadableResponse(_) => "Arrêté : le service a répondu, mais pas avec des \
                                           données que cet écran peut utiliser."
            .into(),
    }
}

/// The second line: the last response, the attempts and the time taken.
fn derniere_reponse(r: &StopReport) -> String {
    let last = r
        .last_response
        .as_ref()
        .map_or("aucune".to_owned(), |l| l.status.to_string());
    format!(
        "Dernière réponse : {last}. Tentatives : {} sur {}. Écoulé : {}.",
        r.attempts,
        r.max_attempts,
        secondes(r.at)
    )
}

/// The third line, but for a success: what happened to the next request, and why.
fn detail(r: &StopReport) -> Option<String> {
    let rien = match r.attempts {
        0 => "Aucune requête n'a été envoyée.",
        1 => "Aucune nouvelle tentative n'a été envoyée.",
        _ => "Aucune autre tentative n'a été envoyée.",
    };
    Some(match r.outcome {
        Outcome::Succeeded => return None,
        Outcome::BudgetExhausted(overrun) => format!("{} {rien}", depassement(overrun)),
        Outcome::AttemptsExhausted => {
            "Le service demandait encore de ralentir à la fin de la dernière tentative.".into()
        }
        Outcome::UserLeft {
            cancelled: Cancelled::InFlight,
        } => "La requête en cours a été annulée ; le service l'a peut-être traitée.".into(),
        Outcome::UserLeft {
            cancelled: Cancelled::Pending,
        } => "La tentative prévue a été annulée ; aucune autre requête n'a été envoyée.".into(),
        Outcome::ClockUntrusted { date } => {
            format!("Le service a demandé de réessayer après le {date}. {rien}")
        }
        Outcome::NonRetryableResponse { .. } => "Vous pouvez réessayer.".into(),
        Outcome::TransportFailure(TransportFailure::Network) => format!(
            "La requête a échoué sur le réseau ; un limiteur de débit qui n'envoie pas d'en-têtes \
             CORS donne le même effet dans un navigateur. {rien}"
        ),
        Outcome::TransportFailure(TransportFailure::CannotAbort) => format!(
            "Ce navigateur ne sait pas annuler une requête : la limite par tentative ne peut pas \
             être tenue. {rien}"
        ),
        Outcome::AttemptTimedOut { .. } => "La requête a été annulée à sa limite de temps ; le \
                                            service l'a peut-être traitée."
            .into(),
        Outcome::UnreadableResponse(problem) => format!("{} {rien}", corps(problem)),
    })
}

/// Why the next attempt would not fit the budget.
fn depassement(overrun: Overrun) -> String {
    match overrun {
        Overrun::ServerDelay(delay) => format!(
            "Le service a demandé un délai de {} s.",
            seconds_text(delay, Precision::Exact).replace('.', ",")
        ),
        Overrun::LocalWait => {
            "L'attente locale avant la prochaine tentative ne tenait pas dans le budget.".into()
        }
        Overrun::WokeLate(late) => format!(
            "L'attente a fini avec {} de retard, trop tard pour une autre tentative.",
            secondes(late)
        ),
        Overrun::Scope(HeldBy::Block {
            wait,
            cause: BlockCause::TooManyRequests,
        }) => format!(
            "Le service a demandé à toutes les requêtes vers cette API d'attendre, et cette \
             attente finit dans {}, après le budget de cette lecture.",
            secondes(wait)
        ),
        Overrun::Scope(HeldBy::Block {
            wait,
            cause: BlockCause::QuotaSpent,
        }) => format!(
            "Le quota de cette API est épuisé et se renouvelle dans {}, après le budget de cette \
             lecture.",
            secondes(wait)
        ),
        Overrun::Scope(HeldBy::Queue { limit }) => format!(
            "{} Son tour n'est pas venu tant que la tentative tenait dans le budget.",
            en_cours(limit)
        ),
        Overrun::Scope(HeldBy::RetryTokens) => "Trop de requêtes récentes vers cette API ont dû \
                                                être retentées ; les reprises reviendront avec \
                                                les succès."
            .into(),
        Overrun::Scope(HeldBy::MaxWaiting { max }) => format!(
            "{max} lecture(s) attendent déjà cette API ; celle-ci aurait été la suivante, elle \
             n'a donc pas été lancée."
        ),
    }
}

/// What was wrong with a 2xx's body: the kind and the place, never what it held.
fn corps(problem: BodyProblem) -> String {
    match problem {
        BodyProblem::Empty => "Sa réponse n'avait pas de corps.".into(),
        BodyProblem::NotJson { line, column } => {
            format!("Son corps n'est pas du JSON (ligne {line}, colonne {column}).")
        }
        BodyProblem::WrongShape { line, column } => format!(
            "Son corps est du JSON, mais pas de la forme attendue (ligne {line}, colonne \
             {column})."
        ),
        BodyProblem::Truncated { line, column } => {
            format!("Son corps finit avant son JSON (ligne {line}, colonne {column}).")
        }
        BodyProblem::TooLarge { limit } => {
            format!("Son corps dépasse {limit} octets ; la lecture s'est arrêtée là.")
        }
        BodyProblem::Interrupted => "Son corps a cessé d'arriver en chemin.".into(),
    }
}

/// Why a wait is as long as it is.
fn pourquoi_attendre(reason: &WaitReason) -> String {
    let s = |d: Duration| seconds_text(d, Precision::Exact).replace('.', ",");
    match reason {
        WaitReason::ServerDelay(d) => format!("Le service a demandé {} s.", s(*d)),
        WaitReason::ServerDate { until, delay, .. } => format!(
            "Le service a indiqué une heure, {until} ({} s après la réponse).",
            s(*delay)
        ),
        WaitReason::Fallback { wait, .. } => format!(
            "Le service n'a donné aucune indication utilisable ; attente de repli de {} s.",
            s(*wait)
        ),
        WaitReason::ScopeBlocked {
            asked,
            cause: BlockCause::TooManyRequests,
            ..
        } => format!(
            "Le service a demandé à toutes les requêtes vers cette API d'attendre {} s.",
            s(*asked)
        ),
        WaitReason::ScopeBlocked {
            asked,
            cause: BlockCause::QuotaSpent,
            ..
        } => format!(
            "Le quota de cette API est épuisé ; il se renouvelle dans {} s.",
            s(*asked)
        ),
    }
}

/// The scope's in-flight limit.
fn en_cours(limit: u32) -> String {
    match limit {
        1 => "Au plus 1 requête vers cette API peut être en cours à la fois.".into(),
        n => format!("Au plus {n} requêtes vers cette API peuvent être en cours à la fois."),
    }
}

/// "1 seconde", "2,5 secondes": to the tenth, as a person reads it.
fn secondes(d: Duration) -> String {
    match seconds_text(d, Precision::Tenths).as_str() {
        "1" => "1 seconde".into(),
        n => format!("{} secondes", n.replace('.', ",")),
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {
    mount_to_body(|| view! { <ListeDePalettes collection="coast" /> });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let html = Owner::new().with(|| view! { <ListeDePalettes collection="coast" /> }.to_html());
    println!("{html}");
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use retry_budget::report::{LastResponse, OutcomeKind};

    fn report(outcome: Outcome, status: u16) -> StopReport {
        StopReport {
            outcome,
            at: Duration::from_secs(2),
            attempts: 1,
            max_attempts: 3,
            last_response: Some(LastResponse {
                status,
                retry_after: Some("30".into()),
                note: None,
            }),
            request_time: Duration::from_secs(2),
            waited_time: Duration::ZERO,
        }
    }

    #[test]
    fn the_contracts_wait_exceeds_message_in_french() {
        let r = report(
            Outcome::BudgetExhausted(Overrun::ServerDelay(Duration::from_secs(30))),
            429,
        );
        assert_eq!(
            message(&r),
            [
                "Arrêté : le budget ne permet pas une autre requête.",
                "Dernière réponse : 429. Tentatives : 1 sur 3. Écoulé : 2 secondes.",
                "Le service a demandé un délai de 30 s. Aucune nouvelle tentative n'a été envoyée.",
            ]
        );
    }

    #[test]
    fn the_facts_are_the_ones_the_english_message_uses() {
        let outcomes = [
            (Outcome::NonRetryableResponse { status: 503 }, 503),
            (
                Outcome::AttemptTimedOut {
                    cap: Duration::from_millis(3500),
                },
                429,
            ),
        ];
        for (outcome, status) in outcomes {
            let r = report(outcome, status);
            let english = r.message().headline().to_string();
            let french = titre(&r);
            match r.outcome.kind() {
                OutcomeKind::NonRetryableResponse => {
                    assert!(
                        english.contains("503") && french.contains("503"),
                        "{french}"
                    )
                }
                _ => assert!(
                    english.contains("3.5 seconds") && french.contains("3,5 secondes"),
                    "{french}"
                ),
            }
        }
        let wait = WaitReason::ServerDelay(Duration::from_millis(2500));
        assert_eq!(pourquoi_attendre(&wait), "Le service a demandé 2,5 s.");
    }

    #[test]
    fn the_server_renders_the_first_attempt_in_french() {
        let html = Owner::new().with(|| view! { <ListeDePalettes collection="coast" /> }.to_html());
        assert!(html.contains("Palettes : coast"), "{html}");
        assert!(html.contains("<p>Tentative 1 sur 3</p>"), "{html}");
        assert!(html.contains("Annuler"), "{html}");
        assert!(!html.contains("Attempt"), "{html}");
    }
}
