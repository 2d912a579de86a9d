//! A scope's learned pace: after a block, the reads it held start no faster than the scope
//! served before it refused.
//!
//! The ledger counts the `2xx` answers of each run (from the end of one block, or from the
//! first answer, to the block that ends it). When that block has ended, the scope served
//! `served` answers in `span` (the run's start to the block's end), and the attempts that
//! start on it next go `served` at a time, the first batch at the block's end and each next
//! one `span` plus the run's spread (its first `2xx` to its last) after the one before: what
//! the scope served last time, when it served it. The spread is there because a batch's
//! answers come back as spread as the run's did, and a limit that frees each slot a window
//! after it was used (a sliding log, a GCRA) frees the batch's last slot that much later. A fixed window serves a batch at its
//! start and says when its quota is spent (a `429`, or RateLimit fields saying nothing is
//! left) with a reset rounded up to whole seconds, so a batch sent as a window opens meets the
//! next window's start, where reads spread evenly would meet a block rounded up past it. A
//! pace that has not held anyone back for a whole `span` is dropped: the next refusal teaches
//! a new one. A block that ends a run in which nothing was served teaches nothing, and the
//! pace from before (if any) stays.
//!
//! A turn its read leaves unused before it comes (the read stopped, or was handed to another
//! client) goes to the next attempt that takes one, so that the turns of reads gone do not push
//! the ones after them further out: a handed-over render's turn is free again at once.
//!
//! Sans-IO like the rest of the ledger: `now` is passed in, the turns are data.

use std::time::Duration;

#[cfg(not(feature = "learned-pace"))]
pub(crate) use inert::Pace;
#[cfg(feature = "learned-pace")]
pub(crate) use learned::Pace;

/// A turn the pace gave an attempt: when it comes, and which of the pace's turns it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Turn {
    /// When it comes.
    pub(crate) at: Duration,
    /// Its number among the turns of the pace that gave it.
    number: u32,
    /// When that pace's first batch went: which pace gave it.
    of: Duration,
}

/// What a server's client learns.
#[cfg(feature = "learned-pace")]
mod learned {
    use std::collections::BTreeSet;
    use std::num::NonZeroU32;

    use super::{Duration, Turn};

    /// How many requests a scope never blocked may have in flight before its first answer, as
    /// TCP's initial window (RFC 6928): each `2xx` then lets one more go, so the window doubles
    /// each round trip until the first block.
    pub(crate) const OPENING_WINDOW: u32 = 10;

    /// What the ledger learned of the pace one scope serves at.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Pace {
        /// When the current run began: the end of the last block, else the first `2xx` heard.
        run_start: Option<Duration>,
        /// `2xx` answers heard in the current run (including those that arrive during the block
        /// that ends it: they were sent before it).
        served: u32,
        /// When the run's first and last `2xx` arrived.
        answers: Option<(Duration, Duration)>,
        /// The end of the block that ends the current run, once one came.
        run_end: Option<Duration>,
        /// What the last closed run taught, if it served anything.
        learned: Option<Learned>,
    }

    /// `served` turns per `span` and `spread`, from `from`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Learned {
        served: NonZeroU32,
        span: Duration,
        /// The run's first `2xx` to its last.
        spread: Duration,
        /// When the first batch went: the end of the block that taught the pace.
        from: Duration,
        /// Turns taken since.
        taken: u32,
        /// Turns given back before they came, below `taken`: taken again first, earliest first.
        freed: BTreeSet<u32>,
    }

    impl Learned {
        /// When turn `number` comes.
        fn at(&self, number: u32) -> Duration {
            let batch = number / self.served.get();
            let period = self.span.saturating_add(self.spread);
            self.from.saturating_add(period.saturating_mul(batch))
        }

        /// The next turn never taken.
        fn next(&self) -> Duration {
            self.at(self.taken)
        }

        /// Turn `number`, taken at `now`.
        fn turn(&self, number: u32, now: Duration) -> Turn {
            Turn {
                at: self.at(number).max(now),
                number,
                of: self.from,
            }
        }
    }

    impl Pace {
        /// A `2xx` arrived at `now`.
        pub(crate) fn served(&mut self, now: Duration) {
            self.run_start.get_or_insert(now);
            self.served = self.served.saturating_add(1);
            self.answers = Some(self.answers.map_or((now, now), |(first, _)| (first, now)));
        }

        /// The scope is blocked until `until` (a longer block than before): the current run ends
        /// there.
        pub(crate) fn blocked(&mut self, until: Duration) {
            self.run_end = Some(self.run_end.map_or(until, |end| end.max(until)));
        }

        /// An attempt is about to start on the scope at `now`, the scope open: the moment its
        /// turn comes (at `now`, or later where the pace holds it back), taken. `None`: no pace
        /// holds it, and it starts now without taking a turn.
        pub(crate) fn take_turn(&mut self, now: Duration) -> Option<Turn> {
            self.close_run(now);
            let learned = self.learned.as_mut()?;
            let next = learned.next();
            // A pace that held no one back for a whole span is stale.
            if next.saturating_add(learned.span) <= now {
                self.learned = None;
                return None;
            }
            // A turn given back goes first, the earliest, while its batch's span still runs
            // (turns come in the order of their numbers, so the ones whose span has passed are
            // the first, and go).
            let mut reused = None;
            while let Some(n) = learned.freed.pop_first() {
                if now < learned.at(n).saturating_add(learned.span) {
                    reused = Some(n);
                    break;
                }
            }
            let number = reused.unwrap_or_else(|| {
                learned.taken = learned.taken.saturating_add(1);
                learned.taken - 1
            });
            Some(learned.turn(number, now))
        }

        /// `turn` goes unused (its read stopped, or was handed over, before it came): the next
        /// attempt takes it instead. A turn of a pace since replaced is nobody's.
        pub(crate) fn give_back(&mut self, turn: Turn) {
            let Some(learned) = self.learned.as_mut().filter(|l| l.from == turn.of) else {
                return;
            };
            if turn.number >= learned.taken || !learned.freed.insert(turn.number) {
                return;
            }
            // The last turns given back are not taken yet at all.
            while let Some(last) = learned.taken.checked_sub(1) {
                if !learned.freed.remove(&last) {
                    break;
                }
                learned.taken = last;
            }
        }

        /// The most requests in flight while no pace holds (before the scope's first block, after
        /// a block that taught none, or once the pace is dropped): the opening window and one more
        /// for each `2xx` of the run; `None` while a pace holds (its turns pace the scope).
        pub(crate) fn opening_window(&self) -> Option<u32> {
            (self.learned.is_none()).then(|| OPENING_WINDOW.saturating_add(self.served))
        }

        /// The pace learned, if one holds: this many turns per this span.
        pub(crate) fn learned(&self) -> Option<(u32, Duration)> {
            (self.learned.as_ref()).map(|l| (l.served.get(), l.span))
        }

        /// Where the run's block has ended by `now`: what it served over its span becomes the
        /// pace, and a new run starts at the block's end.
        fn close_run(&mut self, now: Duration) {
            let Some(end) = self.run_end.filter(|end| *end <= now) else {
                return;
            };
            let run = (self.run_start, NonZeroU32::new(self.served));
            let span = run.0.map(|start| end.saturating_sub(start));
            self.learned = match (run.1, span.filter(|s| !s.is_zero())) {
                (Some(served), Some(span)) => Some(Learned {
                    served,
                    span,
                    spread: self
                        .answers
                        .map_or(Duration::ZERO, |(first, last)| last - first),
                    from: end,
                    taken: 0,
                    freed: BTreeSet::new(),
                }),
                // Nothing served: the pace from before, its batches starting again at the end.
                _ => self.learned.take().map(|l| Learned {
                    from: end,
                    taken: 0,
                    freed: BTreeSet::new(),
                    ..l
                }),
            };
            self.run_start = Some(end);
            self.served = 0;
            self.answers = None;
            self.run_end = None;
        }
    }
}

/// A browser page's: nothing, so it compiles none of the rules above.
#[cfg(not(feature = "learned-pace"))]
mod inert {
    use super::{Duration, Turn};

    /// A pace never learned.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Pace;

    impl Pace {
        pub(crate) fn served(&mut self, _now: Duration) {}
        pub(crate) fn blocked(&mut self, _until: Duration) {}
        pub(crate) fn take_turn(&mut self, _now: Duration) -> Option<Turn> {
            None
        }
        pub(crate) fn give_back(&mut self, _turn: Turn) {}
        pub(crate) fn opening_window(&self) -> Option<u32> {
            None
        }
        pub(crate) fn learned(&self) -> Option<(u32, Duration)> {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::learned::*;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// When a turn comes.
    fn at(turn: Option<Turn>) -> Option<Duration> {
        turn.map(|t| t.at)
    }

    /// A fixed window of 10 a second: ten served at 0 ms, refused until 1,000 ms.
    fn ten_then_blocked() -> Pace {
        let mut pace = Pace::default();
        for _ in 0..10 {
            pace.served(ms(0));
        }
        pace.blocked(ms(1000));
        pace
    }

    #[test]
    fn after_a_block_turns_go_as_many_per_span_as_the_run_served_from_its_end() {
        let mut pace = ten_then_blocked();
        let turns: Vec<_> = (0..25).map(|_| at(pace.take_turn(ms(1000)))).collect();
        let want: Vec<_> = (0..25).map(|k| Some(ms(1000 + 1000 * (k / 10)))).collect();
        assert_eq!(turns, want);
        assert_eq!(pace.learned(), Some((10, ms(1000))));
    }

    #[test]
    fn the_opening_window_grows_by_one_a_2xx_while_no_pace_holds() {
        let mut pace = Pace::default();
        assert_eq!(pace.opening_window(), Some(OPENING_WINDOW));
        pace.served(ms(1));
        pace.served(ms(2));
        assert_eq!(pace.opening_window(), Some(OPENING_WINDOW + 2));
        pace.blocked(ms(1000));
        at(pace.take_turn(ms(1000)));
        assert_eq!(pace.opening_window(), None, "a pace holds");
        // Dropped as stale, the window opens again, as on a new scope.
        assert_eq!(at(pace.take_turn(ms(5000))), None);
        assert_eq!(pace.opening_window(), Some(OPENING_WINDOW));
        // A block after a run that served nothing teaches no pace: the window holds.
        let mut refused = Pace::default();
        refused.blocked(ms(1000));
        assert_eq!(at(refused.take_turn(ms(1000))), None);
        assert_eq!(refused.opening_window(), Some(OPENING_WINDOW));
    }

    #[test]
    fn each_next_batch_waits_the_spread_of_the_runs_answers_too() {
        let mut pace = Pace::default();
        for at in [0, 3, 9] {
            pace.served(ms(at));
        }
        pace.blocked(ms(1000));
        // Three a batch; the span runs from the first answer (1,000 ms), the spread is 9 ms.
        let turns: Vec<_> = (0..7).map(|_| at(pace.take_turn(ms(1000)))).collect();
        let want = [1000, 1000, 1000, 2009, 2009, 2009, 3018];
        assert_eq!(turns, want.map(|t| Some(ms(t))));
    }

    #[test]
    fn nothing_is_paced_before_a_block_has_ended() {
        let mut pace = ten_then_blocked();
        assert_eq!(at(pace.take_turn(ms(999))), None);
        let mut unblocked = Pace::default();
        unblocked.served(ms(0));
        assert_eq!(at(unblocked.take_turn(ms(5))), None);
    }

    #[test]
    fn a_turn_is_never_before_now() {
        let mut pace = ten_then_blocked();
        for _ in 0..10 {
            assert_eq!(at(pace.take_turn(ms(1250))), Some(ms(1250)));
        }
        assert_eq!(at(pace.take_turn(ms(1250))), Some(ms(2000)));
    }

    #[test]
    fn a_pace_that_held_no_one_back_for_a_span_is_dropped() {
        let mut pace = ten_then_blocked();
        for _ in 0..10 {
            at(pace.take_turn(ms(1000)));
        }
        // The next batch was free from 2,000 ms; a whole span (1 s) later it is stale.
        assert_eq!(at(pace.take_turn(ms(2999))), Some(ms(2999)));
        assert_eq!(at(pace.take_turn(ms(3000))), None);
        assert_eq!(pace.learned(), None);
    }

    #[test]
    fn a_turn_given_back_is_the_next_one_taken() {
        let mut pace = ten_then_blocked();
        let turns: Vec<Turn> = (0..12).filter_map(|_| pace.take_turn(ms(1000))).collect();
        assert_eq!(turns[11].at, ms(2000));
        // The last two taken go unused: the next two are theirs again.
        pace.give_back(turns[11]);
        pace.give_back(turns[10]);
        assert_eq!(at(pace.take_turn(ms(1000))), Some(ms(2000)));
        assert_eq!(at(pace.take_turn(ms(1000))), Some(ms(2000)));
        assert_eq!(at(pace.take_turn(ms(1000))), Some(ms(2000)));
        // Every turn given back, down to the first: none is taken, and the first is next.
        let mut all_back = ten_then_blocked();
        let first = all_back.take_turn(ms(1000)).unwrap();
        all_back.give_back(first);
        assert_eq!(at(all_back.take_turn(ms(1000))), Some(ms(1000)));
    }

    #[test]
    fn turns_given_back_before_they_came_go_first_and_no_batch_grows() {
        let mut pace = ten_then_blocked();
        // 35 reads take turns: batches at 1, 2, 3 and 4 s (10, 10, 10, 5).
        let turns: Vec<Turn> = (0..35).filter_map(|_| pace.take_turn(ms(1000))).collect();
        // Twenty of them are handed over before their turn: five of each of the first four
        // batches.
        let gone: Vec<Turn> = (0..4)
            .flat_map(|b| &turns[b * 10..b * 10 + 5])
            .copied()
            .collect();
        for turn in &gone {
            pace.give_back(*turn);
        }
        // The next twenty take the freed turns, earliest first, and then the rest of the
        // last batch: never more than ten a batch.
        let next: Vec<Duration> = (0..25)
            .filter_map(|_| at(pace.take_turn(ms(1000))))
            .collect();
        let mut per_batch = std::collections::BTreeMap::new();
        for t in turns
            .iter()
            .filter(|t| !gone.contains(t))
            .map(|t| t.at)
            .chain(next.clone())
        {
            *per_batch.entry(t).or_insert(0) += 1;
        }
        assert!(per_batch.values().all(|n| *n <= 10), "{per_batch:?}");
        assert_eq!(next[..5], [ms(1000); 5]);
        assert_eq!(next[20..], [ms(4000); 5]);
        // A turn whose batch's span has passed is not taken again later: its window served
        // what it could, and the next window has its own ten.
        let mut late = ten_then_blocked();
        let first: Vec<Turn> = (0..11).filter_map(|_| late.take_turn(ms(1000))).collect();
        late.give_back(first[0]);
        let later: Vec<Duration> = (0..10)
            .filter_map(|_| at(late.take_turn(ms(2100))))
            .collect();
        assert_eq!(later[..9], [ms(2100); 9]);
        assert_eq!(later[9], ms(3000), "the 2 s window would send eleven");
    }

    #[test]
    fn a_run_that_served_nothing_keeps_the_pace_from_before() {
        let mut pace = ten_then_blocked();
        at(pace.take_turn(ms(1000)));
        pace.blocked(ms(2000));
        assert_eq!(at(pace.take_turn(ms(2000))), Some(ms(2000)));
        assert_eq!(pace.learned(), Some((10, ms(1000))));
        let mut never_served = Pace::default();
        never_served.blocked(ms(1000));
        assert_eq!(at(never_served.take_turn(ms(1000))), None);
    }

    #[test]
    fn answers_that_arrive_during_the_block_count_in_the_run_it_ends() {
        let mut pace = Pace::default();
        pace.served(ms(0));
        pace.blocked(ms(1000));
        for at in 1..5 {
            pace.served(ms(at * 10));
        }
        at(pace.take_turn(ms(1000)));
        assert_eq!(pace.learned(), Some((5, ms(1000))));
    }

    #[test]
    fn the_next_run_starts_at_the_block_end_and_a_later_block_relearns() {
        let mut pace = ten_then_blocked();
        for _ in 0..5 {
            at(pace.take_turn(ms(1000)));
        }
        for at in 0..4 {
            pace.served(ms(1000 + 100 * at));
        }
        pace.blocked(ms(3000));
        assert_eq!(at(pace.take_turn(ms(3000))), Some(ms(3000)));
        assert_eq!(pace.learned(), Some((4, ms(2000))));
    }
}
