//! The scenario's names for `dcnsim_transport`'s enums (snake_case values, and the
//! scenario-only kinds: TLT, the RTO formula, slow start, Near-Opt) and the `ToTcp` /
//! `FromTcp` conversions between a key's scenario value and its `TcpConfig` field.

use crate::units::{Bytes, Dur};
use dcnsim_engine::Time;
use dcnsim_transport::{CcKind, HyStartMode, Profile, RtoMode, SsthreshBasis, TltClocking};
use serde::{Deserialize, Serialize};

/// A scenario value and the [`TcpConfig`] field type it becomes.
pub(super) trait ToTcp<T> {
    fn to_tcp(&self) -> T;
}
/// The scenario value of a [`TcpConfig`] field (for defaults taken from a profile).
pub(super) trait FromTcp<T> {
    fn from_tcp(t: &T) -> Self;
}

macro_rules! same_type {
    ($($t:ty),*) => {$(
        impl ToTcp<$t> for $t { fn to_tcp(&self) -> $t { *self } }
        impl FromTcp<$t> for $t { fn from_tcp(t: &$t) -> $t { *t } }
    )*};
}
same_type!(u32, bool, f64);

impl ToTcp<Time> for Dur {
    fn to_tcp(&self) -> Time {
        self.0
    }
}
impl FromTcp<Time> for Dur {
    fn from_tcp(t: &Time) -> Dur {
        Dur(*t)
    }
}
/// Optional durations of `TcpConfig` whose `None` means "another key's value" are resolved
/// in the scenario, so the key always has a value to print.
impl ToTcp<Option<Time>> for Dur {
    fn to_tcp(&self) -> Option<Time> {
        Some(self.0)
    }
}
impl ToTcp<u64> for Bytes {
    fn to_tcp(&self) -> u64 {
        self.0
    }
}
impl FromTcp<u64> for Bytes {
    fn from_tcp(t: &u64) -> Bytes {
        Bytes(*t)
    }
}
impl<A: ToTcp<B>, B> ToTcp<Option<B>> for Option<A> {
    fn to_tcp(&self) -> Option<B> {
        self.as_ref().map(ToTcp::to_tcp)
    }
}
impl<A: FromTcp<B>, B> FromTcp<Option<B>> for Option<A> {
    fn from_tcp(t: &Option<B>) -> Self {
        t.as_ref().map(A::from_tcp)
    }
}

/// A snake_case scenario enum mirroring a `dcnsim_transport` enum variant for variant.
macro_rules! mirror_enum {
    ($(#[$m:meta])* $name:ident => $tcp:ident { $($(#[$vm:meta])* $v:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vm])* $v),* }
        impl ToTcp<$tcp> for $name {
            fn to_tcp(&self) -> $tcp { match self { $($name::$v => $tcp::$v),* } }
        }
        impl FromTcp<$tcp> for $name {
            fn from_tcp(t: &$tcp) -> Self { match t { $($tcp::$v => $name::$v),* } }
        }
    };
}

mirror_enum!(
    /// Which defaults a transport starts from (docs/tcp.md).
    #[derive(Default)]
    ProfileName => Profile { #[default] Rfc, Linux, Ns3 }
);
mirror_enum!(#[derive(Default)] CcName => CcKind {
    #[serde(rename = "newreno")]
    NewReno,
    #[default]
    Cubic,
    Dctcp,
    /// D2TCP (Vamanan et al. 2012; deadline-aware DCTCP).
    #[serde(rename = "d2tcp")]
    D2tcp,
    /// L2DCT (Munir et al. 2013; size-weighted DCTCP).
    #[serde(rename = "l2dct")]
    L2dct,
    /// RFC 6817 LEDBAT (delay-based scavenger).
    #[serde(rename = "ledbat")]
    Ledbat,
    /// TCP-LP (Kuzmanovic & Knightly 2003; delay-based scavenger).
    #[serde(rename = "tcp_lp")]
    TcpLp,
});
mirror_enum!(SsthreshBasisName => SsthreshBasis { FlightSize, Pipe, Cwnd });
mirror_enum!(HyStartName => HyStartMode { Off, Linux, Rfc9406 });

/// TLT on this transport and the payload rule of its important ACK-clocking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TltName {
    #[default]
    Off,
    Adaptive,
    Mtu,
    Byte,
}
impl ToTcp<Option<TltClocking>> for TltName {
    fn to_tcp(&self) -> Option<TltClocking> {
        match self {
            TltName::Off => None,
            TltName::Adaptive => Some(TltClocking::Adaptive),
            TltName::Mtu => Some(TltClocking::Mtu),
            TltName::Byte => Some(TltClocking::Byte),
        }
    }
}
impl FromTcp<Option<TltClocking>> for TltName {
    fn from_tcp(t: &Option<TltClocking>) -> Self {
        match t {
            None => TltName::Off,
            Some(TltClocking::Adaptive) => TltName::Adaptive,
            Some(TltClocking::Mtu) => TltName::Mtu,
            Some(TltClocking::Byte) => TltName::Byte,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RtoModeName {
    /// RFC 6298: RTO = max(rto_min, SRTT + max(G, 4·RTTVAR)).
    #[default]
    Rfc6298,
    /// Linux-style: the variance term is floored at rto_min.
    Linux,
    /// A fixed RTO of `rto_static` (TLT-Fig2).
    Static,
}

impl FromTcp<RtoMode> for RtoModeName {
    fn from_tcp(t: &RtoMode) -> Self {
        match t {
            RtoMode::Rfc6298 => RtoModeName::Rfc6298,
            RtoMode::Linux => RtoModeName::Linux,
            RtoMode::Static(_) => RtoModeName::Static,
        }
    }
}

/// Slow-start growth per ACK (with `abc_l`, `TcpConfig::ss_increase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowStartName {
    /// RFC 3465 appropriate byte counting, at most `abc_l` segments per ACK.
    Abc,
    /// One segment per ACK (ns-3).
    PerAck,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TransportKindName {
    #[default]
    Tcp,
    Nearopt,
    /// A RoCEv2 queue pair (`transport::roce`); its keys are the `roce` table.
    Roce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NearOptLoss {
    #[default]
    Timeout,
    Immediate,
}

/// How Near-Opt counts a class's own queue (`sim::nearopt::OwnQueue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NearOptOwnQueue {
    #[default]
    Excess,
    Full,
    Ignore,
}

/// How Near-Opt divides a link's available rate (`sim::nearopt::Share`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NearOptShare {
    #[default]
    Equal,
    MaxMin,
}
