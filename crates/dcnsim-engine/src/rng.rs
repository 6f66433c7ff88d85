//! Seeded random streams.
//!
//! Every random choice in dcnsim draws from a named stream derived from the run's master
//! seed, `Rng::stream(master, purpose, index)`, so adding a flow or a RED queue never
//! perturbs the draws of another purpose. The generator is xoshiro256** seeded through
//! SplitMix64 (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021).

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

#[inline]
fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stable 64-bit mix of several words (used for stream derivation and ECMP hashing).
#[inline]
pub fn mix64(words: &[u64]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for &w in words {
        let mut x = h ^ w;
        h = splitmix64(&mut x);
    }
    h
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng { s }
    }

    /// An independent stream for (`purpose`, `index`) under `master`. Purposes are small
    /// constants chosen by the caller (see `dcnsim::rngs`).
    pub fn stream(master: u64, purpose: u64, index: u64) -> Self {
        Rng::new(mix64(&[master, purpose, index]))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) (Lemire's multiply-shift; bias < 2^-64 * n, negligible).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        let u = 1.0 - self.f64(); // (0, 1]
        -mean * u.ln()
    }

    /// Bernoulli(p).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_independent_and_reproducible() {
        let a: Vec<u64> = (0..4).map(|_| Rng::stream(1, 2, 3).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(
            Rng::stream(1, 2, 3).next_u64(),
            Rng::stream(1, 2, 4).next_u64()
        );
        assert_ne!(
            Rng::stream(1, 2, 3).next_u64(),
            Rng::stream(2, 2, 3).next_u64()
        );
    }
    #[test]
    fn uniform_mean() {
        let mut r = Rng::new(7);
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.f64()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.01);
        let e: f64 = (0..n).map(|_| r.exp(3.0)).sum::<f64>() / n as f64;
        assert!((e - 3.0).abs() < 0.06);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
