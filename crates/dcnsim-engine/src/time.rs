//! Integer time and rates.
//!
//! Time is a `u64` count of picoseconds: at 400 Gb/s a 64 B frame lasts 1.28 ns, so
//! nanosecond rounding would be too coarse, and a `u64` of picoseconds still spans 213 days.

/// Simulated time in picoseconds since the start of the run.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const SEC: Time = 1_000_000_000_000;

/// Converts seconds (float) to picoseconds, rounding to nearest.
pub fn secs(s: f64) -> Time {
    (s * SEC as f64).round() as Time
}

/// Converts picoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// A link or pacing rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next picosecond.
    /// This is the one place in dcnsim where transmission time is computed.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Time {
        debug_assert!(self.0 > 0);
        // bytes * 8e12 / bps, exact in u128 and rounded up so a packet never finishes early.
        let num = bytes as u128 * 8 * SEC as u128;
        num.div_ceil(self.0 as u128) as Time
    }
    /// Bytes that can be sent in `t` at this rate (floor).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t as u128 / (8 * SEC as u128)) as u64
    }
}

/// Fast serialization-time computer for one fixed rate: precomputes an exact integer
/// picoseconds-per-byte when the rate divides 8e12 (all common datacenter rates do),
/// otherwise falls back to the exact division in [`Rate::tx_time`].
#[derive(Clone, Copy, Debug)]
pub struct TxClock {
    rate: Rate,
    ps_per_byte: u64, // 0 = not exact, use division
}

impl TxClock {
    pub fn new(rate: Rate) -> Self {
        let num = 8 * SEC;
        let ps_per_byte = if rate.0 > 0 && num.is_multiple_of(rate.0) {
            num / rate.0
        } else {
            0
        };
        TxClock { rate, ps_per_byte }
    }
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte
        } else {
            self.rate.tx_time(bytes)
        }
    }
    pub fn rate(&self) -> Rate {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_time_common_rates_exact() {
        assert_eq!(Rate::gbps(10).tx_time(1500), 1_200_000); // 1.2 us
        assert_eq!(Rate::gbps(40).tx_time(1500), 300_000);
        assert_eq!(Rate::gbps(400).tx_time(64), 1_280);
        assert_eq!(TxClock::new(Rate::gbps(10)).tx_time(1500), 1_200_000);
        // 3 Gb/s is not exact: rounds up.
        let t = Rate::gbps(3).tx_time(1);
        assert_eq!(t, 2667);
        assert_eq!(TxClock::new(Rate::gbps(3)).tx_time(1), 2667);
    }
    #[test]
    fn bytes_in_inverse() {
        assert_eq!(Rate::gbps(10).bytes_in(MS), 1_250_000);
    }
}
