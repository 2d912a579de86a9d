//! The run's random numbers: splitmix64 from one seed, so a seed replays a run exactly.
//!
//! The same generator as the core's jitter (which the core keeps to itself): the fleet's
//! figures in `docs/fleet.md` were drawn from this stream, and a test below pins its numbers.

use std::time::Duration;

/// A seeded stream of random numbers (splitmix64), and the arrivals' gaps drawn from it.
pub struct Draws(u64);

impl Draws {
    /// The stream that `seed` starts.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A gap drawn from the exponential distribution with this `mean`: the time between two
    /// arrivals of a Poisson stream.
    pub fn exponential(&mut self, mean: Duration) -> Duration {
        // A uniform number in (0, 1]: 53 random bits, never zero.
        let uniform = ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        mean.mul_f64(-uniform.ln())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_numbers_are_splitmix64s() {
        // The reference values of splitmix64 seeded with 1234567 (Vigna's splitmix64.c), as the
        // core's own test pins them: the fleet's tables were drawn from this stream.
        let mut r = Draws::new(1_234_567);
        assert_eq!(r.next(), 6_457_827_717_110_365_317);
        assert_eq!(r.next(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn a_seed_replays_and_gaps_average_their_mean() {
        let mean = Duration::from_millis(100);
        let (mut a, mut b) = (Draws::new(7), Draws::new(7));
        let gaps: Vec<_> = (0..20_000).map(|_| a.exponential(mean)).collect();
        assert!(gaps.iter().all(|g| *g == b.exponential(mean)));
        let average = gaps.iter().sum::<Duration>() / 20_000;
        assert!(
            average > Duration::from_millis(97) && average < Duration::from_millis(103),
            "{average:?}"
        );
    }
}
