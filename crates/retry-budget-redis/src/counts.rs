//! What the share counts through the `metrics` facade (feature `metrics`):
//! `retry_budget_redis_away_total`, each time Redis goes away (said once per absence).

pub(crate) fn away() {
    metrics::counter!("retry_budget_redis_away_total").increment(1);
}
