//! Quantities with units, as they appear in scenario files.
//!
//! Every quantity accepts a plain number in the base unit or a string with a unit suffix:
//!
//! | type        | base unit (plain number) | suffixes (case-insensitive)                                   |
//! |-------------|--------------------------|----------------------------------------------------------------|
//! | [`Bw`]      | bits per second          | `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps`                          |
//! | [`Dur`]     | seconds (float)          | `ps`, `ns`, `us`, `ms`, `s`                                    |
//! | [`Bytes`]   | bytes                    | `B`, `KB`, `MB`, `GB` (powers of 1000), `KiB`, `MiB`, `GiB`    |
//! | [`Amount`]  | bytes                    | any [`Bytes`] suffix, or `pkt`/`pkts` for a packet count       |
//!
//! KB = 1000 B (mechanisms §0: TLT's arithmetic uses kB = 1000 B); KiB = 1024 B.
//! Each type serializes back to a canonical string so a normalized scenario round-trips.
//!
//! Case rules: unit prefixes and `ps`/`ns`/`bps`/`pkt` are case-insensitive, but the last
//! letter of a size is not: `B` is bytes and `b` is bits. A size written in bits (`"10Kb"`,
//! `"1Mb"`) is rejected rather than read as bytes; a rate is always `...bps`.
//!
//! Ranges (a value outside is an error, never clamped): rates 0 to [`MAX_BPS`] (1 Pb/s),
//! durations 0 to [`MAX_DUR`] (10⁶ s), sizes 0 to [`MAX_BYTES`] (10¹⁵ B), packet counts 0 to
//! [`MAX_PKTS`] (10⁹). Sizes and rates are rounded to the nearest whole unit, durations to the
//! nearest picosecond.

use dcnsim_engine::{Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Largest rate (bits/s): 1 Pb/s.
pub const MAX_BPS: u64 = 1_000_000_000_000_000;
/// Largest duration: 10⁶ s in picoseconds (u64 picoseconds wrap after 213 days).
pub const MAX_DUR: Time = 1_000_000 * dcnsim_engine::SEC;
/// Largest size: 10¹⁵ bytes (1 PB).
pub const MAX_BYTES: u64 = 1_000_000_000_000_000;
/// Largest packet count.
pub const MAX_PKTS: u64 = 1_000_000_000;

/// `v` (already in base units) as an integer in `0..=max`, or a message naming the range.
fn in_range(v: f64, max: u64, what: &str, shown: &str) -> Result<u64, String> {
    let v = nonneg(v, what)?;
    let r = v.round();
    if r > max as f64 {
        return Err(format!(
            "expected a {what} of at most {shown}, got {v:e} (values are never clamped)"
        ));
    }
    Ok(r as u64)
}

fn split_num(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let idx = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit()
                || *c == '.'
                || *c == 'e'
                || *c == 'E'
                || *c == '-'
                || *c == '+'
                || *c == '_')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e3" style is allowed, but an 'e'/'E' directly followed by a letter belongs to the unit: none of ours start with e.
    let (num, unit) = s.split_at(idx);
    let num: f64 = num.replace('_', "").parse().ok()?;
    Some((num, unit.trim().to_string()))
}

macro_rules! number_or_string {
    ($ty:ident, $expect:expr, $from_f64:expr, $from_str:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        let f: fn(f64) -> Result<$ty, String> = $from_f64;
                        f(v).map_err(E::custom)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$ty, E> {
                        let f: fn(&str) -> Result<$ty, String> = $from_str;
                        f(v).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

fn nonneg(v: f64, what: &str) -> Result<f64, String> {
    if !v.is_finite() || v < 0.0 {
        Err(format!("expected a non-negative {what}, got {v}"))
    } else {
        Ok(v)
    }
}

/// A bandwidth (link or pacing rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Bw(pub u64);

impl Bw {
    pub fn rate(self) -> Rate {
        Rate(self.0)
    }
    pub fn gbps(g: u64) -> Bw {
        Bw(g * 1_000_000_000)
    }
}

fn bw_from_str(s: &str) -> Result<Bw, String> {
    let (n, u) =
        split_num(s).ok_or_else(|| format!("expected a rate like \"10Gbps\", got {s:?}"))?;
    let mult = match u.to_ascii_lowercase().as_str() {
        "" | "bps" => 1.0,
        "kbps" => 1e3,
        "mbps" => 1e6,
        "gbps" => 1e9,
        "tbps" => 1e12,
        _ => {
            return Err(format!(
                "unknown rate unit {u:?} in {s:?} (use bps, Kbps, Mbps, Gbps, Tbps)"
            ))
        }
    };
    Ok(Bw(in_range(
        nonneg(n, "rate")? * mult,
        MAX_BPS,
        "rate",
        "1e15 bps (1000Tbps)",
    )?))
}
number_or_string!(
    Bw,
    "a rate: bits/s as a number or a string like \"10Gbps\"",
    |v| Ok(Bw(in_range(v, MAX_BPS, "rate", "1e15 bps (1000Tbps)")?)),
    bw_from_str
);

impl Serialize for Bw {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        let txt = if v != 0 && v.is_multiple_of(1_000_000_000) {
            format!("{}Gbps", v / 1_000_000_000)
        } else if v != 0 && v.is_multiple_of(1_000_000) {
            format!("{}Mbps", v / 1_000_000)
        } else {
            format!("{v}bps")
        };
        s.serialize_str(&txt)
    }
}

/// A duration (or absolute simulated time), stored in picoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Dur(pub Time);

impl Dur {
    pub fn ps(self) -> Time {
        self.0
    }
    pub fn us(us: u64) -> Dur {
        Dur(us * dcnsim_engine::US)
    }
    pub fn ms(ms: u64) -> Dur {
        Dur(ms * dcnsim_engine::MS)
    }
    pub fn secs(self) -> f64 {
        dcnsim_engine::to_secs(self.0)
    }
}

fn dur_from_str(s: &str) -> Result<Dur, String> {
    let (n, u) =
        split_num(s).ok_or_else(|| format!("expected a duration like \"10us\", got {s:?}"))?;
    let mult = match u.to_ascii_lowercase().as_str() {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "" | "s" => 1e12,
        _ => {
            return Err(format!(
                "unknown time unit {u:?} in {s:?} (use ps, ns, us, ms, s)"
            ))
        }
    };
    Ok(Dur(in_range(
        nonneg(n, "duration")? * mult,
        MAX_DUR,
        "duration",
        "1000000 s",
    )?))
}
number_or_string!(
    Dur,
    "a duration: seconds as a number or a string like \"10us\"",
    |v| Ok(Dur(in_range(
        nonneg(v, "duration")? * 1e12,
        MAX_DUR,
        "duration",
        "1000000 s"
    )?)),
    dur_from_str
);

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        let txt = if v == 0 {
            "0s".to_string()
        } else if v.is_multiple_of(1_000_000_000_000) {
            format!("{}s", v / 1_000_000_000_000)
        } else if v.is_multiple_of(1_000_000_000) {
            format!("{}ms", v / 1_000_000_000)
        } else if v.is_multiple_of(1_000_000) {
            format!("{}us", v / 1_000_000)
        } else if v.is_multiple_of(1_000) {
            format!("{}ns", v / 1_000)
        } else {
            format!("{v}ps")
        };
        s.serialize_str(&txt)
    }
}

/// A byte count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Bytes(pub u64);

/// Multiplier of a size unit. `B` is bytes; a unit ending in a lower-case `b` (`Kb`, `Mb`) is
/// bits, which a size does not take: the caller reports it.
fn byte_mult(u: &str) -> Option<f64> {
    if u.ends_with('b') {
        return None;
    }
    Some(match u.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

fn unit_err(u: &str, s: &str, also: &str) -> String {
    if u.ends_with('b') && !u.eq_ignore_ascii_case("pkt") {
        let t = s.trim();
        let fix = format!("{}B", &t[..t.len() - 1]);
        format!("{s:?} is in bits ({u}); sizes are in bytes: write {fix} (B = bytes, b = bits)")
    } else {
        format!("unknown size unit {u:?} in {s:?} (use B, KB, MB, GB, KiB, MiB, GiB{also})")
    }
}

fn bytes_from_str(s: &str) -> Result<Bytes, String> {
    let (n, u) = split_num(s).ok_or_else(|| format!("expected a size like \"64KB\", got {s:?}"))?;
    let m = byte_mult(&u).ok_or_else(|| unit_err(&u, s, ""))?;
    Ok(Bytes(in_range(
        nonneg(n, "size")? * m,
        MAX_BYTES,
        "size",
        "1e15 bytes (1000TB)",
    )?))
}
number_or_string!(
    Bytes,
    "a size: bytes as a number or a string like \"64KB\"",
    |v| Ok(Bytes(in_range(
        v,
        MAX_BYTES,
        "size",
        "1e15 bytes (1000TB)"
    )?)),
    bytes_from_str
);

fn bytes_txt(v: u64) -> String {
    if v != 0 && v.is_multiple_of(1_000_000) {
        format!("{}MB", v / 1_000_000)
    } else if v != 0 && v.is_multiple_of(1000) {
        format!("{}KB", v / 1000)
    } else {
        format!("{v}B")
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&bytes_txt(self.0))
    }
}

/// A buffer amount or threshold: bytes, or a packet count (`"65pkt"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Bytes(u64),
    Pkts(u64),
}

impl Default for Amount {
    fn default() -> Self {
        Amount::Bytes(0)
    }
}

fn amount_from_str(s: &str) -> Result<Amount, String> {
    let (n, u) = split_num(s)
        .ok_or_else(|| format!("expected a size like \"64KB\" or \"65pkt\", got {s:?}"))?;
    let n = nonneg(n, "amount")?;
    let lu = u.to_ascii_lowercase();
    if lu == "pkt" || lu == "pkts" || lu == "p" || lu == "packets" {
        if n.fract() != 0.0 {
            return Err(format!("packet count must be a whole number, got {s:?}"));
        }
        return Ok(Amount::Pkts(in_range(
            n,
            MAX_PKTS,
            "packet count",
            "1000000000pkt",
        )?));
    }
    let m = byte_mult(&u).ok_or_else(|| unit_err(&u, s, " or pkt"))?;
    Ok(Amount::Bytes(in_range(
        n * m,
        MAX_BYTES,
        "size",
        "1e15 bytes (1000TB)",
    )?))
}
number_or_string!(
    Amount,
    "a size in bytes or a packet count like \"65pkt\"",
    |v| Ok(Amount::Bytes(in_range(
        v,
        MAX_BYTES,
        "size",
        "1e15 bytes (1000TB)"
    )?)),
    amount_from_str
);

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Amount::Bytes(b) => s.serialize_str(&bytes_txt(b)),
            Amount::Pkts(p) => s.serialize_str(&format!("{p}pkt")),
        }
    }
}

impl Amount {
    /// Whether a queue holding `bytes`/`pkts` has reached this amount.
    #[inline]
    pub fn reached(self, bytes: u64, pkts: u64) -> bool {
        match self {
            Amount::Bytes(b) => bytes >= b,
            Amount::Pkts(p) => pkts >= p,
        }
    }
    /// Whether adding one packet of `size` bytes to `bytes`/`pkts` would exceed this limit.
    #[inline]
    pub fn would_exceed(self, bytes: u64, pkts: u64, size: u64) -> bool {
        match self {
            Amount::Bytes(b) => bytes + size > b,
            Amount::Pkts(p) => pkts + 1 > p,
        }
    }
    /// The amount in bytes, converting packets at `mtu_wire` bytes each.
    pub fn as_bytes(self, mtu_wire: u64) -> u64 {
        match self {
            Amount::Bytes(b) => b,
            Amount::Pkts(p) => p * mtu_wire,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn j<T: for<'a> Deserialize<'a>>(s: &str) -> Result<T, serde_json::Error> {
        serde_json::from_str(s)
    }
    #[test]
    fn parse_units() {
        assert_eq!(j::<Bw>("\"10Gbps\"").unwrap(), Bw(10_000_000_000));
        assert_eq!(j::<Bw>("1e9").unwrap(), Bw(1_000_000_000));
        assert_eq!(j::<Dur>("\"1.5us\"").unwrap(), Dur(1_500_000));
        assert_eq!(j::<Dur>("0.001").unwrap(), Dur(1_000_000_000));
        assert_eq!(j::<Bytes>("\"64KB\"").unwrap(), Bytes(64_000));
        assert_eq!(j::<Bytes>("\"1MiB\"").unwrap(), Bytes(1_048_576));
        assert_eq!(j::<Amount>("\"65pkt\"").unwrap(), Amount::Pkts(65));
        assert_eq!(j::<Amount>("\"200KB\"").unwrap(), Amount::Bytes(200_000));
        assert!(j::<Bw>("\"-1Gbps\"")
            .unwrap_err()
            .to_string()
            .contains("non-negative"));
        assert!(j::<Bw>("\"10Gbit\"")
            .unwrap_err()
            .to_string()
            .contains("unknown rate unit"));
        assert!(j::<Dur>("\"5 fortnights\"").is_err());
    }
    #[test]
    fn out_of_range_is_an_error_and_bits_are_not_bytes() {
        for bad in ["\"1e30bps\"", "1e16", "\"2000Tbps\""] {
            let e = j::<Bw>(bad).unwrap_err().to_string();
            assert!(e.contains("at most"), "{bad}: {e}");
        }
        assert!(j::<Bw>("1e15").is_ok());
        assert!(j::<Dur>("1e30")
            .unwrap_err()
            .to_string()
            .contains("at most"));
        assert!(j::<Dur>("\"1000000s\"").is_ok());
        assert!(j::<Bytes>("18446744073709551616").is_err());
        assert!(j::<Amount>("\"1e20pkt\"").is_err());
        for bits in ["\"10Kb\"", "\"1Mb\"", "\"8b\"", "\"1Gib\""] {
            let e = j::<Bytes>(bits).unwrap_err().to_string();
            assert!(e.contains("bits"), "{bits}: {e}");
            assert!(j::<Amount>(bits).is_err());
        }
        // prefixes are case-insensitive, the final B is not
        assert_eq!(j::<Bytes>("\"10kB\"").unwrap(), Bytes(10_000));
        assert!(j::<Bytes>("\"1mib\"").is_err());
        assert_eq!(j::<Bw>("\"10GBPS\"").unwrap(), Bw(10_000_000_000));
        assert_eq!(j::<Dur>("\"10US\"").unwrap(), Dur(10_000_000));
    }

    #[test]
    fn roundtrip() {
        for s in ["\"10Gbps\"", "\"100Mbps\""] {
            let v: Bw = j(s).unwrap();
            assert_eq!(serde_json::to_string(&v).unwrap(), s);
        }
        for s in ["\"1us\"", "\"1500ns\"", "\"3ms\"", "\"2s\"", "\"1ps\""] {
            let v: Dur = j(s).unwrap();
            assert_eq!(serde_json::to_string(&v).unwrap(), s);
        }
        let v: Amount = j("\"65pkt\"").unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"65pkt\"");
    }
}
