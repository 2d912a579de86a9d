//! The RateLimit fields: how much of a scope's quota is left, and when it resets, so the
//! client can hold back *before* a `429`. Three forms are read, the first valid one winning:
//!
//! 1. `RateLimit` (draft-ietf-httpapi-ratelimit-headers), a structured-field List (RFC 9651) of
//!    policies, `"window";r=0;t=3`: `r` is what is left, `t` the seconds to the reset. With
//!    several policies, the one with the least left counts (the latest reset among equals).
//! 2. `RateLimit-Remaining` and `RateLimit-Reset` (RFC 9333's earlier draft form), seconds.
//! 3. `X-RateLimit-Remaining` and `X-RateLimit-Reset`: the reset in seconds, or, from
//!    1,000,000,000 on (past 2001 as a Unix time, over 31 years as a delay), a Unix time read
//!    against the receipt's clock evidence, as a `Retry-After` date is.
//!
//! A field that is present but not valid is reported ([`IgnoredField`]) and not used. The
//! fields describe a quota; they never erase a `429` already received.

use std::cmp::Reverse;
use std::convert::Infallible;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::shown::quoted;

/// The rate-limit fields of a response, as received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimitFields {
    /// `RateLimit`.
    pub ratelimit: Option<String>,
    /// `RateLimit-Remaining`.
    pub remaining: Option<String>,
    /// `RateLimit-Reset`.
    pub reset: Option<String>,
    /// `X-RateLimit-Remaining`.
    pub x_remaining: Option<String>,
    /// `X-RateLimit-Reset`.
    pub x_reset: Option<String>,
}

/// Which form a quota was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaForm {
    /// `RateLimit`, structured.
    Structured,
    /// `RateLimit-Remaining` / `-Reset`.
    Separate,
    /// `X-RateLimit-Remaining` / `-Reset`.
    Legacy,
}

/// What a response's fields say of the scope's quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quota {
    /// Requests left before the reset.
    pub remaining: u64,
    /// From the receipt to the reset, where a field gives it.
    pub reset: Option<Duration>,
    /// Which form said so.
    pub form: QuotaForm,
}

/// A rate-limit field that was present but not used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredField {
    /// The field's name.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for IgnoredField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ignored: {}", self.field, self.reason)
    }
}

impl RateLimitFields {
    /// The fields' names, in the order [`quota`](Self::quota) reads them: `RateLimit`, the
    /// separate pair, the legacy pair. An [`IgnoredField`] names one of them.
    pub(crate) const FIELD_NAMES: [&'static str; 5] = [
        "RateLimit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
    ];
}

impl RateLimitFields {
    /// The header names read, in lower case: the runtime asks for each.
    pub const NAMES: [&'static str; 5] = [
        "ratelimit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ];

    /// None of the fields.
    pub const fn none() -> Self {
        Self {
            ratelimit: None,
            remaining: None,
            reset: None,
            x_remaining: None,
            x_reset: None,
        }
    }

    /// Sets the field `name` (any case; one of [`NAMES`](Self::NAMES)). Returns `false`, and
    /// sets nothing, for any other name.
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> bool {
        let slot = match name.to_ascii_lowercase().as_str() {
            "ratelimit" => &mut self.ratelimit,
            "ratelimit-remaining" => &mut self.remaining,
            "ratelimit-reset" => &mut self.reset,
            "x-ratelimit-remaining" => &mut self.x_remaining,
            "x-ratelimit-reset" => &mut self.x_reset,
            _ => return false,
        };
        *slot = Some(value.into());
        true
    }

    /// Whether any field is present.
    pub fn is_empty(&self) -> bool {
        *self == Self::none()
    }

    /// What the fields say of the quota, with `receipt` the receipt's wall-clock time where
    /// there is clock evidence: the first valid form, and every field present but ignored.
    pub fn quota(&self, receipt: Option<SystemTime>) -> (Option<Quota>, Vec<IgnoredField>) {
        let mut ignored = Vec::new();
        let mut found = None;
        if let Some(v) = &self.ratelimit {
            match structured(v) {
                Ok(q) => found = Some(q),
                Err(reason) => ignored.push(IgnoredField {
                    field: Self::FIELD_NAMES[0],
                    reason,
                }),
            }
        }
        let pairs = [
            (
                QuotaForm::Separate,
                (Self::FIELD_NAMES[1], &self.remaining),
                (Self::FIELD_NAMES[2], &self.reset),
            ),
            (
                QuotaForm::Legacy,
                (Self::FIELD_NAMES[3], &self.x_remaining),
                (Self::FIELD_NAMES[4], &self.x_reset),
            ),
        ];
        for (form, (rem_name, remaining), (reset_name, reset)) in pairs {
            let Some(remaining) = remaining else {
                if reset.is_some() {
                    ignored.push(IgnoredField {
                        field: reset_name,
                        reason: format!("it comes without {rem_name}"),
                    });
                }
                continue;
            };
            let remaining = match whole(remaining) {
                Ok(n) => n,
                Err(reason) => {
                    ignored.push(IgnoredField {
                        field: rem_name,
                        reason,
                    });
                    continue;
                }
            };
            let reset = match reset.as_deref().map(|r| reset_of(form, r, receipt)) {
                None => None,
                Some(Ok(d)) => Some(d),
                Some(Err(reason)) => {
                    ignored.push(IgnoredField {
                        field: reset_name,
                        reason,
                    });
                    None
                }
            };
            if found.is_none() {
                found = Some(Quota {
                    remaining,
                    reset,
                    form,
                });
            }
        }
        (found, ignored)
    }
}

impl Quota {
    /// How long the scope is spent for: the time to the reset when nothing is left.
    pub fn spent_for(&self) -> Option<Duration> {
        (self.remaining == 0)
            .then_some(self.reset)
            .flatten()
            .filter(|d| !d.is_zero())
    }
}

/// One or more ASCII digits (saturating), or why not.
fn whole(v: &str) -> Result<u64, String> {
    let t = v.trim_matches([' ', '\t']);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{} is not a whole number", quoted(t)));
    }
    Ok(t.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    }))
}

/// From 10^9 on, an `X-RateLimit-Reset` is a Unix time, not a delay.
const UNIX_TIME_FROM: u64 = 1_000_000_000;

fn reset_of(form: QuotaForm, v: &str, receipt: Option<SystemTime>) -> Result<Duration, String> {
    let n = whole(v)?;
    if form != QuotaForm::Legacy || n < UNIX_TIME_FROM {
        return Ok(Duration::from_secs(n));
    }
    let Some(receipt) = receipt else {
        return Err(format!(
            "{n} is a Unix time, and no trusted clock dates the receipt"
        ));
    };
    let at = UNIX_EPOCH + Duration::from_secs(n);
    Ok(at.duration_since(receipt).map_or(Duration::ZERO, |d| {
        // Rounded up to the second, as a Retry-After date is.
        Duration::from_secs(d.as_secs() + u64::from(d.subsec_nanos() > 0))
    }))
}

/// `RateLimit`: a List of policies, each with `r` (left) and optionally `t` (seconds to reset).
/// `sfv` checks the whole value against RFC 9651's grammar and hands each member to
/// [`Policies`] as it goes (no parsed tree is built), so a value that does not parse is named
/// as such before anything a policy in it lacks.
fn structured(v: &str) -> Result<Quota, String> {
    let mut policies = Policies::default();
    sfv::Parser::new(v)
        .parse_list_with_visitor(&mut policies)
        .map_err(|e| match e.index() {
            Some(at) => format!("not a structured-field List (at byte {at})"),
            None => "not a structured-field List".to_owned(),
        })?;
    match policies.wrong {
        Some(why) => Err(why.to_owned()),
        None => policies.best.ok_or_else(|| "it names no policy".to_owned()),
    }
}

/// A parameter's value, as far as a policy needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bare {
    /// An Integer.
    Integer(i64),
    /// Any other bare item.
    Other,
}

/// The policies of a `RateLimit` List as `sfv` parses them: the tightest so far (the fewest
/// left, then the latest reset), and the first thing wrong with one. It never fails the parse:
/// what a policy lacks is told once the whole value has parsed.
#[derive(Default)]
struct Policies {
    best: Option<Quota>,
    wrong: Option<&'static str>,
}

impl Policies {
    fn take(&mut self, quota: Result<Quota, &'static str>) {
        match quota {
            Ok(q) => {
                let tighter = self.best.as_ref().is_none_or(|b| {
                    (q.remaining, Reverse(q.reset)) < (b.remaining, Reverse(b.reset))
                });
                if tighter {
                    self.best = Some(q);
                }
            }
            Err(why) => {
                self.wrong.get_or_insert(why);
            }
        }
    }
}

impl<'de> sfv::visitor::ListVisitor<'de> for &mut Policies {
    type Out = ();
    type Error = Infallible;

    fn entry(&mut self) -> Result<impl sfv::visitor::EntryVisitor<'de>, Infallible> {
        Ok(Member(self))
    }

    fn finish(self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// One member of the List.
struct Member<'a>(&'a mut Policies);

impl<'de> sfv::visitor::EntryVisitor<'de> for Member<'_> {
    type Error = Infallible;

    fn item(self) -> Result<impl sfv::visitor::ItemVisitor<'de>, Infallible> {
        Ok(self)
    }

    fn inner_list(self) -> Result<impl sfv::visitor::InnerListVisitor<'de>, Infallible> {
        self.0.take(Err("a policy is an inner list, not an item"));
        // Still checked to its end by the grammar.
        Ok(sfv::visitor::Ignored)
    }
}

impl<'de> sfv::visitor::ItemVisitor<'de> for Member<'_> {
    type Out = ();
    type Error = Infallible;

    fn bare_item(
        self,
        _name: sfv::BareItemFromInput<'de>,
    ) -> Result<impl sfv::visitor::ParameterVisitor<'de, Out = ()>, Infallible> {
        Ok(Params {
            policies: self.0,
            params: Vec::new(),
        })
    }
}

/// One policy's parameters, in order.
struct Params<'a, 'de> {
    policies: &'a mut Policies,
    params: Vec<(&'de str, Bare)>,
}

impl<'de> sfv::visitor::ParameterVisitor<'de> for Params<'_, 'de> {
    type Out = ();
    type Error = Infallible;

    fn parameter(
        &mut self,
        key: &'de sfv::KeyRef,
        value: sfv::BareItemFromInput<'de>,
    ) -> Result<(), Infallible> {
        let value = value
            .as_integer()
            .map_or(Bare::Other, |i| Bare::Integer(i64::from(i)));
        self.params.push((key.as_str(), value));
        Ok(())
    }

    fn finish(self) -> Result<(), Infallible> {
        self.policies.take(policy(&self.params));
        Ok(())
    }
}

/// One policy's quota from its parameters: `r` and `t`, the last of each (as RFC 9651 has a
/// repeated key mean), whole numbers; the policy's name says nothing this client needs.
fn policy(params: &[(&str, Bare)]) -> Result<Quota, &'static str> {
    let last = |key: &str| {
        params
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| match *v {
                Bare::Integer(n) => u64::try_from(n).ok(),
                Bare::Other => None,
            })
    };
    let remaining = match last("r") {
        None => return Err("a policy has no r (requests left)"),
        Some(None) => return Err("its r is not a whole number"),
        Some(Some(r)) => r,
    };
    let reset = match last("t") {
        Some(None) => return Err("its t is not a whole number"),
        t => t.flatten().map(Duration::from_secs),
    };
    Ok(Quota {
        remaining,
        reset,
        form: QuotaForm::Structured,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn fields(pairs: &[(&str, &str)]) -> RateLimitFields {
        let mut f = RateLimitFields::none();
        for (k, v) in pairs {
            assert!(f.set(k, *v), "{k}");
        }
        f
    }

    fn quota(pairs: &[(&str, &str)]) -> (Option<(u64, Option<u64>)>, Vec<String>) {
        let (q, ignored) = fields(pairs).quota(Some(crate::test_clock::noon()));
        (
            q.map(|q| (q.remaining, q.reset.map(|d| d.as_secs()))),
            ignored.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn the_structured_field_is_read_first_and_the_tightest_policy_counts() {
        assert_eq!(
            quota(&[("RateLimit", "\"window\";r=0;t=3")]),
            (Some((0, Some(3))), vec![])
        );
        assert_eq!(
            quota(&[("ratelimit", "\"hour\";r=40;t=2000, \"minute\";r=0;t=12")]),
            (Some((0, Some(12))), vec![])
        );
        // Present and valid, it wins over the other forms.
        assert_eq!(
            quota(&[
                ("RateLimit", "\"w\";r=5;t=9"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "30")
            ]),
            (Some((5, Some(9))), vec![])
        );
    }

    #[test]
    fn the_older_forms_are_read_and_a_unix_reset_needs_a_clock() {
        assert_eq!(
            quota(&[("RateLimit-Remaining", "0"), ("RateLimit-Reset", "3")]),
            (Some((0, Some(3))), vec![])
        );
        assert_eq!(
            quota(&[
                ("X-RateLimit-Remaining", "0"),
                ("X-RateLimit-Reset", "1704110410")
            ]),
            (Some((0, Some(10))), vec![])
        );
        let (q, ignored) = fields(&[
            ("X-RateLimit-Remaining", "0"),
            ("X-RateLimit-Reset", "1704110410"),
        ])
        .quota(None);
        assert_eq!(q.map(|q| q.reset), Some(None));
        assert_eq!(
            ignored[0].to_string(),
            "X-RateLimit-Reset ignored: 1704110410 is a Unix time, and no trusted clock dates the receipt"
        );
        assert_eq!(
            q.and_then(|q| q.spent_for()),
            None,
            "no reset known: nothing to wait for"
        );
    }

    #[test]
    fn invalid_fields_are_named_and_ignored() {
        let (q, ignored) = quota(&[
            ("RateLimit", "\"w\";t=3"),
            ("RateLimit-Remaining", "none"),
            ("X-RateLimit-Reset", "5"),
        ]);
        assert_eq!(q, None);
        assert_eq!(
            ignored,
            [
                "RateLimit ignored: a policy has no r (requests left)",
                "RateLimit-Remaining ignored: \u{201c}none\u{201d} is not a whole number",
                "X-RateLimit-Reset ignored: it comes without X-RateLimit-Remaining",
            ]
        );
        let (_, ignored) = quota(&[("RateLimit", "\"w\";r=-1;t=3")]);
        assert_eq!(ignored, ["RateLimit ignored: its r is not a whole number"]);
        // An older draft's dictionary form is not the List this draft defines.
        let (_, ignored) = quota(&[("RateLimit", "limit=10, remaining=0, reset=3")]);
        assert!(
            ignored[0].starts_with("RateLimit ignored: not a structured-field List"),
            "{ignored:?}"
        );
        let (_, ignored) = quota(&[("RateLimit", "\"w\";r=0;t=3,,")]);
        assert_eq!(
            ignored,
            ["RateLimit ignored: not a structured-field List (at byte 12)"]
        );
        assert!(
            ignored[0].starts_with("RateLimit ignored: not a structured-field List"),
            "{ignored:?}"
        );
        // An invalid structured field does not hide a valid older one.
        assert_eq!(
            quota(&[
                ("RateLimit", "(\"a\");r=0"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "4")
            ])
            .0,
            Some((0, Some(4)))
        );
        assert!(!RateLimitFields::none().set("Retry-After", "3"));
    }

    #[test]
    fn only_nothing_left_with_a_reset_to_come_spends_the_scope() {
        let q = |remaining, reset: Option<u64>| Quota {
            remaining,
            reset: reset.map(Duration::from_secs),
            form: QuotaForm::Separate,
        };
        assert_eq!(q(0, Some(3)).spent_for(), Some(Duration::from_secs(3)));
        assert_eq!(q(1, Some(3)).spent_for(), None);
        assert_eq!(q(0, Some(0)).spent_for(), None);
        assert_eq!(q(0, None).spent_for(), None);
    }
}
