//! A scope's block as Redis holds it: the key, named after the scope (never a secret), whose
//! time to live is what remains of the block, so that no two machines' clocks are compared;
//! its value, the core's text for the rest: the delay the service gave and why
//! ([`SharedBlock::stored_value`], `"<asked ms> <429|quota>"`). And a scope's
//! retry purse: a key of its own holding the thousandths of a token left.

use std::time::Duration;

use retry_budget_tokio::SharedBlock;

/// Writes a block only where it ends later than the one Redis holds (a block grows only), in
/// one round trip: `KEYS[1]` the scope's key, `ARGV[1]` what remains in ms, `ARGV[2]` the
/// value. 1 if written.
pub(crate) const GROW: &str = r"
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
  return 1
end
return 0
";

/// What remains of the block on `KEYS[1]` in ms (negative: none), and its value, in one
/// round trip.
pub(crate) const READ: &str = r"
return {redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1])}
";

/// Takes one token (1,000 thousandths) from the purse on `KEYS[1]`, full at `ARGV[1]`
/// thousandths when first used, in one round trip: `{1, left}` if taken, `{0, left}` if not.
pub(crate) const TAKE: &str = r"
local left = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if left >= 1000 then
  left = left - 1000
  redis.call('SET', KEYS[1], left)
  return {1, left}
end
redis.call('SET', KEYS[1], left)
return {0, left}
";

/// Puts `ARGV[2]` thousandths back into the purse on `KEYS[1]`, never past its `ARGV[1]`.
pub(crate) const GIVE: &str = r"
local full = tonumber(ARGV[1])
local left = math.min(full, tonumber(redis.call('GET', KEYS[1]) or full) + tonumber(ARGV[2]))
redis.call('SET', KEYS[1], left)
return left
";

/// The block `READ` found: `None` where none runs, or where the key holds a value this crate
/// did not write (it is left alone, not guessed at).
pub(crate) fn read(left_ms: i64, value: Option<&str>) -> Option<SharedBlock> {
    let left = u64::try_from(left_ms).ok().filter(|ms| *ms > 0)?;
    SharedBlock::from_stored(Duration::from_millis(left), value?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_block_where_none_runs_or_the_value_is_not_this_crates() {
        // -2: no key; -1: a key with no time to live.
        for left in [-2, -1, 0] {
            assert_eq!(read(left, Some("3000 429")), None);
        }
        for value in [None, Some("soon"), Some("3000 teapot"), Some("x 429")] {
            assert_eq!(read(1_000, value), None, "{value:?}");
        }
        let block = read(2_500, Some("3000 429")).unwrap();
        assert_eq!(block.remaining, Duration::from_millis(2_500));
    }
}
