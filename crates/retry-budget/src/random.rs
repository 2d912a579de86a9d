//! The random numbers jitter is drawn from: splitmix64 from one seed, so a seed replays a run
//! exactly (a driver seeds it at random; a test, a replay or a simulation with a fixed number).

/// A seeded stream of random numbers (splitmix64). Not for secrets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// The stream that `seed` starts.
    pub(crate) const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next number.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_first_numbers_are_splitmix64s() {
        // The reference values of splitmix64 seeded with 1234567 (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }
}
