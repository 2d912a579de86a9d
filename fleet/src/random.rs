//! The run's random numbers: the core's own generator ([`SplitMix64`]) from one seed, so a
//! seed replays a run exactly.

use std::time::Duration;

use retry_budget::SplitMix64;

/// A seeded stream of random numbers, and the arrivals' gaps drawn from it.
pub struct Draws(SplitMix64);

impl Draws {
    /// The stream that `seed` starts.
    pub const fn new(seed: u64) -> Self {
        Self(SplitMix64::new(seed))
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
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
