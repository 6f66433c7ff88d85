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

use dcnsim_engine::{Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

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
    Some((num, unit.trim().to_ascii_lowercase()))
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
    let mult = match u.as_str() {
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
    Ok(Bw((nonneg(n, "rate")? * mult).round() as u64))
}
number_or_string!(
    Bw,
    "a rate: bits/s as a number or a string like \"10Gbps\"",
    |v| Ok(Bw(nonneg(v, "rate")?.round() as u64)),
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
    let mult = match u.as_str() {
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
    Ok(Dur((nonneg(n, "duration")? * mult).round() as Time))
}
number_or_string!(
    Dur,
    "a duration: seconds as a number or a string like \"10us\"",
    |v| Ok(Dur((nonneg(v, "duration")? * 1e12).round() as Time)),
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

fn byte_mult(u: &str) -> Option<f64> {
    Some(match u {
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

fn bytes_from_str(s: &str) -> Result<Bytes, String> {
    let (n, u) = split_num(s).ok_or_else(|| format!("expected a size like \"64KB\", got {s:?}"))?;
    let m = byte_mult(&u).ok_or_else(|| {
        format!("unknown size unit {u:?} in {s:?} (use B, KB, MB, GB, KiB, MiB, GiB)")
    })?;
    Ok(Bytes((nonneg(n, "size")? * m).round() as u64))
}
number_or_string!(
    Bytes,
    "a size: bytes as a number or a string like \"64KB\"",
    |v| Ok(Bytes(nonneg(v, "size")?.round() as u64)),
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
    if u == "pkt" || u == "pkts" || u == "p" || u == "packets" {
        if n.fract() != 0.0 {
            return Err(format!("packet count must be a whole number, got {s:?}"));
        }
        return Ok(Amount::Pkts(n as u64));
    }
    let m = byte_mult(&u)
        .ok_or_else(|| format!("unknown unit {u:?} in {s:?} (use B, KB, MB, KiB, MiB or pkt)"))?;
    Ok(Amount::Bytes((n * m).round() as u64))
}
number_or_string!(
    Amount,
    "a size in bytes or a packet count like \"65pkt\"",
    |v| Ok(Amount::Bytes(nonneg(v, "amount")?.round() as u64)),
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
