//! A scope's block as Redis holds it: the key, named after the scope (never a secret), whose
//! time to live is what remains of the block, so that no two machines' clocks are compared;
//! its value, the core's text for the rest: the delay the service gave and why
//! ([`SharedBlock::stored_value`], `"<asked ms> <429|quota>"`). A scope's
//! retry purse: a key of its own holding the thousandths of a token left. A scope's places in
//! flight: a sorted set of who holds one (a process's name and its attempt's) by when it
//! expires.

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

/// Takes one of `ARGV[2]` places in flight on the scope whose places `KEYS[1]` holds (a sorted
/// set: each place's holder by when it expires, on Redis's own clock), for `ARGV[3]` ms, for the
/// holder `ARGV[1]`, in one round trip: places past their time are dropped first; 1 if taken
/// (or already the holder's), 0 if none is free. `ARGV[4]` = 1 takes it whatever the
/// count: a place this process's attempt already holds, kept true (after an outage too).
///
/// No new place is given while the scope's block (`KEYS[3]`, as `GROW` writes it) runs: a
/// process that asked before it heard of the block would send on it.
///
/// A Redis that holds no `KEYS[2]` has started empty (or is used for the first time): the
/// places the processes' running attempts hold are not in it yet. It gives no new place for
/// `ARGV[5]` ms, while every process makes its places true again (each does, every
/// `retry_every`, for as long as it holds one).
pub(crate) const TAKE_PLACE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
local settled = tonumber(redis.call('GET', KEYS[2]))
if not settled then
  settled = now + tonumber(ARGV[5])
  redis.call('SET', KEYS[2], settled)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local holds = redis.call('ZSCORE', KEYS[1], ARGV[1])
local free = now >= settled and redis.call('PTTL', KEYS[3]) <= 0
  and redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2])
if ARGV[4] == '1' or holds or free then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  if redis.call('PTTL', KEYS[1]) < ttl then
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
  return 1
end
return 0
";

/// Starts the wait of a Redis that holds no `KEYS[1]` (see [`TAKE_PLACE`]) now, `ARGV[1]` ms
/// long, where no process has started it yet: from the first process that connects, rather than
/// from the first place asked for, so that a fleet that starts with its Redis is past the wait
/// by the time reads come. 1 if this call started it.
pub(crate) const SETTLE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], now + tonumber(ARGV[1]))
return 1
";

/// Gives back the place `ARGV[1]` holds on `KEYS[1]`, if it holds one.
pub(crate) const GIVE_PLACE: &str = r"
return redis.call('ZREM', KEYS[1], ARGV[1])
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
