//! `[transports.NAME]`: every transport key defined once, in the `transport_keys!` table.
//!
//! One entry per key gives its name, type, how its default is found (from
//! [`TcpConfig::profile`] or a constant), which [`TcpConfig`] field it sets, its unit, its
//! range, its sources and its doc. From that table come the serde schema (the
//! [`TransportSpec`] a user writes, every key optional, and the resolved
//! [`TransportConfig`] that `validate --show` prints), the mapping to [`TcpConfig`] (and of
//! its validation messages back to key names), and the Markdown tables of
//! docs/scenario.md and docs/tcp.md ([`transport_keys_md`], [`tcp_profiles_md`]; the tests
//! in `tests/docs.rs` fail when the docs drift).
//!
//! Resolution: a key the user wrote wins; otherwise the value of the transport's `profile`
//! (`rfc` by default: dcnsim's historical defaults) for its `cc`. A table named after a
//! built-in (`[transports.dctcp]`) starts from that built-in's `cc`.
//!
//! Layout: the key table and what it generates (the mapping to [`TcpConfig`], the Markdown
//! tables) here; the scenario enums and their conversions to `dcnsim_transport`'s in
//! `transport/names.rs`; the built-in transports and the `transports` map's
//! (de)serialization in `transport/builtin.rs`.

use super::roce::{RoceConfig, RoceSpec};
use super::ConfigError;
use crate::units::{Bw, Bytes, Dur};
use dcnsim_transport::{RtoMode, SlowStartIncrease, TcpConfig};
use serde::{Deserialize, Serialize};

mod builtin;
mod names;

pub(super) use builtin::{de_transports, ser_transports};
pub use builtin::{BUILTINS, HPCC_BUILTIN, ROCE_BUILTIN};
pub use names::{
    CcName, HyStartName, NearOptLoss, NearOptOwnQueue, NearOptShare, ProfileName, RtoModeName,
    SlowStartName, SsthreshBasisName, TltName, TransportKindName,
};
use names::{FromTcp, ToTcp};

/// One row of the key table: what docs/scenario.md and docs/tcp.md say about a key.
#[derive(Clone, Copy, Debug)]
pub struct KeyDoc {
    pub name: &'static str,
    /// Unit or type ("duration", "segments", the enum's values).
    pub unit: &'static str,
    /// Allowed values (checked by `TcpConfig::validate` or the builder); "" = any.
    pub range: &'static str,
    /// Where the profiles' values come from; "" = not a TCP behaviour (no docs/tcp.md row).
    pub source: &'static str,
    pub doc: &'static str,
}

/// The default of one key: `tcp(field)` takes the profile's field, `tcp(field, expr)` and
/// `val(expr)` evaluate `expr` (which may name earlier keys, the profile and `p`).
macro_rules! key_default {
    ($p:ident; tcp($f:ident)) => {
        FromTcp::from_tcp(&$p.$f)
    };
    ($p:ident; tcp($f:ident, $e:expr)) => {
        $e
    };
    ($p:ident; val($e:expr)) => {
        $e
    };
}
/// Sets the `TcpConfig` field of a `tcp(..)` key; `val(..)` keys are mapped by hand.
macro_rules! key_apply {
    ($v:expr, $cfg:ident; tcp($f:ident $(, $e:expr)?)) => {
        $cfg.$f = ToTcp::to_tcp(&$v)
    };
    ($v:expr, $cfg:ident; val($e:expr)) => {};
}
/// Maps a `TcpConfig` field name (in a validation message) to its key.
macro_rules! key_field {
    ($field:ident, $key:ident; tcp($f:ident $(, $e:expr)?)) => {
        if $field == stringify!($f) {
            return Some(stringify!($key));
        }
    };
    ($field:ident, $key:ident; val($e:expr)) => {};
}

macro_rules! transport_keys {
    (
        ($profile:ident, $cc:ident, $p:ident)
        $( $(#[doc = $doc:literal])+
           $key:ident : $ty:ty = $how:ident ( $($arg:tt)* ), $unit:literal, $range:literal, $src:literal; )*
    ) => {
        /// `[transports.NAME]` as written: every key optional (unset = the profile's value).
        #[derive(Clone, Debug, Default, PartialEq, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct TransportSpec {
            pub profile: Option<ProfileName>,
            pub cc: Option<CcName>,
            /// RoCE parameters (`kind = "roce"` only).
            pub roce: Option<RoceSpec>,
            $( pub $key: Option<$ty>, )*
        }

        impl TransportSpec {
            /// The TCP-family keys written (every key but `kind` and `roce`).
            pub fn tcp_keys_written(&self) -> Vec<&'static str> {
                let mut w = Vec::new();
                if self.profile.is_some() { w.push("profile"); }
                if self.cc.is_some() { w.push("cc"); }
                $( if self.$key.is_some() && stringify!($key) != "kind" { w.push(stringify!($key)); } )*
                w
            }
        }

        /// TCP-family settings (`[transports.<name>]`), resolved: every key has its value.
        /// MSS comes from `[packet]`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(from = "TransportSpec")]
        pub struct TransportConfig {
            /// `rfc` (default), `linux` or `ns3`: the defaults of the keys not written.
            pub profile: ProfileName,
            pub cc: CcName,
            /// `kind = "roce"`: the RoCE parameters (none for the TCP family).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub roce: Option<RoceConfig>,
            $( $(#[doc = $doc])+ pub $key: $ty, )*
        }

        impl TransportConfig {
            /// Explicit keys of `spec`, else the values of its profile for its `cc`
            /// (`default_cc` when unset).
            pub fn resolve(spec: &TransportSpec, default_cc: CcName) -> TransportConfig {
                let $profile = spec.profile.unwrap_or_default();
                let $cc = spec.cc.unwrap_or(default_cc);
                let $p = TcpConfig::profile($profile.to_tcp(), $cc.to_tcp());
                $( let $key: $ty = match spec.$key {
                    Some(v) => v,
                    None => key_default!($p; $how($($arg)*)),
                }; )*
                let roce = match (spec.kind.unwrap_or_default(), &spec.roce) {
                    (_, Some(r)) => Some(RoceConfig::from(r.clone())),
                    (TransportKindName::Roce, None) => Some(RoceConfig::default()),
                    _ => None,
                };
                TransportConfig { profile: $profile, cc: $cc, roce, $($key),* }
            }

            fn set_tcp_keys(&self, cfg: &mut TcpConfig) {
                $( key_apply!(self.$key, cfg; $how($($arg)*)); )*
            }

            fn key_of_field(field: &str) -> Option<&'static str> {
                $( key_field!(field, $key; $how($($arg)*)); )*
                None
            }
        }

        /// Every transport key, in table order.
        pub const TRANSPORT_KEYS: &[KeyDoc] = &[
            KeyDoc {
                name: "profile",
                unit: "`rfc`, `linux`, `ns3`",
                range: "",
                source: "",
                doc: "the defaults of every key not written: `rfc` (dcnsim's RFC baseline), \
                      `linux` (Linux 6.x) or `ns3` (ns-3 `TcpSocketBase`); see [tcp.md](tcp.md)",
            },
            KeyDoc {
                name: "cc",
                unit: "`newreno`, `cubic`, `dctcp`, `d2tcp`, `l2dct`, `ledbat`, `tcp_lp`",
                range: "",
                source: "",
                doc: "congestion control: RFC 5681/6582 NewReno, RFC 9438 CUBIC, RFC 8257 DCTCP \
                      and its derivatives D2TCP (deadline-aware: a flow's `deadline` sets its \
                      imminence) and L2DCT (weighted by bytes sent), these three with ECN always \
                      on; RFC 6817 LEDBAT, TCP-LP; a table named after a built-in defaults to \
                      the built-in's",
            },
            $( KeyDoc {
                name: stringify!($key),
                unit: $unit,
                range: $range,
                source: $src,
                doc: concat!($($doc),+),
            }, )*
        ];
    };
}

// Sources: RFC sections, Linux (net/ipv4) functions and constants, ns-3 attributes; they
// repeat the comments of `TcpConfig::profile`, which sets the values.
transport_keys! {
    (profile, cc, p)
    /// `tcp`; `nearopt`: the LPF oracle (paced at a rate computed from global knowledge
    /// every `nearopt_period`, retransmits only truly lost packets; the window keys do not
    /// apply to it); `roce`: a RoCEv2 queue pair whose keys are the `roce` table (no other
    /// key applies; see [rdma.md](rdma.md))
    kind: TransportKindName = val(TransportKindName::Tcp), "`tcp`, `nearopt`, `roce`", "", "";
    /// initial window
    init_cwnd: u32 = tcp(init_cwnd_pkts), "segments", "≥ 1",
        "RFC 6928 §2; Linux TCP_INIT_CWND; ns-3 InitialCwnd";
    /// receive window (bounds bytes in flight)
    rwnd: Bytes = tcp(rwnd_bytes), "bytes", "≥ MSS", "";
    /// RFC 2018 SACK with RFC 6675 loss recovery; false = NewReno partial ACKs (RFC 6582)
    sack: bool = tcp(sack), "bool", "", "RFC 2018, RFC 6675; Linux tcp_sack; ns-3 Sack";
    /// duplicate-ACK threshold (1 allowed)
    dupack_thresh: u32 = tcp(dupack_thresh), "segments", "≥ 1",
        "RFC 5681 §3.2; Linux tcp_reordering; ns-3 ReTxThreshold";
    /// ECT data and classic RFC 3168 reaction (always on for dctcp, d2tcp and l2dct)
    ecn: bool = tcp(ecn), "bool", "", "RFC 3168 §6.1.2";
    /// RTO formula: `rfc6298`, `linux` (variance term floored at rto_min), `static` (a fixed
    /// `rto_static`)
    rto_mode: RtoModeName = val(RtoModeName::from_tcp(&p.rto_mode)),
        "`rfc6298`, `linux`, `static`", "",
        "RFC 6298 §2; Linux tcp_rtt_estimator, __tcp_set_rto; ns-3 RttMeanDeviation";
    /// lower bound on the RTO
    rto_min: Dur = tcp(rto_min), "duration", "> 0",
        "RFC 6298 (2.4) (1 s; dcnsim: 1 ms); Linux TCP_RTO_MIN; ns-3 MinRto";
    /// upper bound on the backed-off RTO
    rto_max: Dur = tcp(rto_max), "duration", "≥ rto_min",
        "RFC 6298 (2.5); Linux TCP_RTO_MAX; ns-3 MaxRto";
    /// RTO before the first RTT sample; unset: `rto_min` under `rfc` (datacenter studies
    /// start near RTO_min, not at RFC 6298's 1 s), the profile's value otherwise
    rto_init: Dur = tcp(rto_init, if profile == ProfileName::Rfc { rto_min } else { Dur(p.rto_init) }),
        "duration", "> 0",
        "RFC 6298 (2.1) (dcnsim rfc: rto_min); Linux TCP_TIMEOUT_INIT; ns-3 InitialEstimation";
    /// the fixed RTO of `rto_mode = "static"` (default `rto_min`)
    rto_static: Dur = val(match p.rto_mode { RtoMode::Static(t) => Dur(t), _ => rto_min }),
        "duration", "> 0", "";
    /// clock granularity G of RFC 6298
    clock_granularity: Dur = tcp(clock_granularity), "duration", "",
        "RFC 6298 (2.2)-(2.3); ns-3 ClockGranularity";
    /// RFC 1122 delayed ACKs
    delayed_ack: bool = tcp(delayed_ack), "bool", "",
        "RFC 1122 §4.2.3.2, RFC 5681 §4.2; Linux tcp_send_delayed_ack; ns-3 DelAckCount";
    /// with delayed ACKs, ACK every Nth in-order segment
    delack_count: u32 = tcp(delack_count), "segments", "≥ 1", "RFC 5681 §4.2; ns-3 DelAckCount";
    /// the delayed-ACK timer
    delack_timeout: Dur = tcp(delack_timeout), "duration", "> 0 with delayed_ack",
        "RFC 5681 §4.2 (≤ 500 ms); Linux TCP_DELACK_MIN; ns-3 DelAckTimeout";
    /// DCTCP EWMA gain g
    dctcp_g: f64 = tcp(dctcp_g), "number", "(0, 1]", "RFC 8257 §3.3; Linux dctcp_shift_g";
    /// DCTCP initial α
    dctcp_alpha_init: f64 = tcp(dctcp_alpha_init), "number", "[0, 1]",
        "Linux dctcp_alpha_on_init; ns-3 TcpDctcp";
    /// CUBIC C
    cubic_c: f64 = tcp(cubic_c), "segments/s³", "> 0", "RFC 9438 §5";
    /// CUBIC β
    cubic_beta: f64 = tcp(cubic_beta), "number", "(0, 1)", "RFC 9438 §4.6";
    /// CUBIC fast convergence
    cubic_fast_convergence: bool = tcp(cubic_fast_convergence), "bool", "", "RFC 9438 §4.7";
    /// CUBIC Reno-friendly region
    cubic_tcp_friendly: bool = tcp(cubic_tcp_friendly), "bool", "", "RFC 9438 §4.3";
    /// Near-Opt rate-update period T (LPF §3); unset = the host link delay
    nearopt_period: Option<Dur> = val(None), "duration", "≥ 1 ns (clamped)", "";
    /// Near-Opt rate floor (0: a flow with no available rate pauses)
    nearopt_min_rate: Bw = val(Bw(0)), "rate", "", "";
    /// when Near-Opt learns of a drop: `timeout` (at its retransmission timeout, the paper's
    /// description) or `immediate` (at the drop)
    nearopt_loss: NearOptLoss = val(NearOptLoss::Timeout), "`timeout`, `immediate`", "", "";
    /// how Near-Opt's rate counts its own class's queue: `excess` (only beyond one period of
    /// the link: work-conserving), `full` (the paper's printed equation), `ignore` (its
    /// prose); see docs/schemes.md
    nearopt_own_queue: NearOptOwnQueue = val(NearOptOwnQueue::Excess),
        "`excess`, `full`, `ignore`", "", "LPF §3";
    /// how Near-Opt divides a link's available rate: `equal` (÷ the class's flow count on the
    /// link, the paper's equation) or `max_min` (flows held lower by another link of their
    /// path keep their rate, the rest share what they leave: the max-min fair share the
    /// prose names); see docs/schemes.md
    nearopt_share: NearOptShare = val(NearOptShare::Equal), "`equal`, `max_min`", "", "LPF §3";
    /// model SYN / SYN-ACK before data and a FIN after it (the FCT is still measured from the
    /// flow's start)
    handshake: bool = val(false), "bool", "", "";
    /// TCP+ (LPF §5): high-priority probes; a marked echo halts the sender until an unmarked
    /// echo; needs `[scheme] kind = "cqcn"`
    cqcn: bool = val(false), "bool", "", "";
    /// TCP+ probe interval (one probe per interval per flow)
    cqcn_interval: Dur = val(Dur::us(100)), "duration", "", "";
    /// TCP+ probe size on the wire
    cqcn_probe: Bytes = val(Bytes(64)), "bytes", "≥ 64 with cqcn", "";
    /// queue of TCP+ probes and their echoes
    cqcn_priority: u8 = val(0), "queue", "a queue of every port", "";
    /// LEDBAT TARGET queuing delay (LPF Fig. 10 uses 3.2 ms)
    ledbat_target: Dur = tcp(ledbat_target), "duration", "> 0", "RFC 6817 §2.4.2";
    /// LEDBAT GAIN
    ledbat_gain: f64 = tcp(ledbat_gain), "number", "(0, 1]", "RFC 6817 §2.4.2";
    /// LEDBAT base-delay window; unset = the minimum over the flow's lifetime
    ledbat_base_window: Option<Dur> = tcp(ledbat_base_window), "duration", "> 0",
        "RFC 6817 §2.4.2 update_base_delay";
    /// TCP-LP early-congestion threshold δ, a fraction of (d_max − d_min)
    tcplp_delta: f64 = tcp(tcplp_delta), "number", "(0, 1)", "TCP-LP §III-B; Linux tcp_lp";
    /// TCP-LP smoothing gain γ of the one-way delay
    tcplp_gamma: f64 = tcp(tcplp_gamma), "number", "(0, 1]", "TCP-LP §III-B; Linux tcp_lp";
    /// TCP-LP inference timeout, in smoothed RTTs
    tcplp_itt_rtts: f64 = tcp(tcplp_itt_rtts), "RTTs", "≥ 1", "TCP-LP §III-C; Linux tcp_lp";
    /// TCP-LP: at most one early-congestion reaction per window, the smoothed delay restarted
    /// after it (`false`: react to every indication, the paper's rule read literally)
    tcplp_gate: bool = tcp(tcplp_gate), "bool", "", "TCP-LP §III-C";
    /// D2TCP lower clamp of the deadline imminence factor d = T_c / D
    d2tcp_d_min: f64 = tcp(d2tcp_d_min), "number", "> 0", "D2TCP §3.1.2; spec §4.3";
    /// D2TCP upper clamp of d
    d2tcp_d_max: f64 = tcp(d2tcp_d_max), "number", "≥ d2tcp_d_min", "D2TCP §3.1.2; spec §4.3";
    /// L2DCT weight of a flow that has sent at least `l2dct_size_hi`
    l2dct_w_min: f64 = tcp(l2dct_w_min), "number", "> 0", "PIAS-NS2 L2DCT; spec §4.4";
    /// L2DCT weight of a flow that has sent at most `l2dct_size_lo`
    l2dct_w_max: f64 = tcp(l2dct_w_max), "number", "≥ l2dct_w_min", "PIAS-NS2 L2DCT; spec §4.4";
    /// L2DCT bytes sent up to which the weight is `l2dct_w_max`
    l2dct_size_lo: Bytes = tcp(l2dct_size_lo), "bytes", "", "PIAS-NS2 L2DCT; spec §4.4";
    /// L2DCT bytes sent from which the weight is `l2dct_w_min` (linear in between)
    l2dct_size_hi: Bytes = tcp(l2dct_size_hi), "bytes", "> l2dct_size_lo",
        "PIAS-NS2 L2DCT; spec §4.4";
    /// initial ssthresh; unset = infinite ("arbitrarily high")
    init_ssthresh: Option<Bytes> = tcp(init_ssthresh), "bytes", "≥ 2·MSS",
        "RFC 5681 §3.1; Linux TCP_INFINITE_SSTHRESH; ns-3 InitialSlowStartThreshold";
    /// slow-start growth per ACK: `abc` (RFC 3465 byte counting, at most `abc_l` segments
    /// per ACK) or `per_ack` (one segment per ACK)
    slow_start: SlowStartName = val(match p.ss_increase {
            SlowStartIncrease::Abc { .. } => SlowStartName::Abc,
            SlowStartIncrease::PerAck => SlowStartName::PerAck,
        }), "`abc`, `per_ack`", "",
        "RFC 3465 §2.2; Linux tcp_slow_start; ns-3 TcpNewReno::SlowStart";
    /// ABC limit L (0 = no limit: every segment acked counts)
    abc_l: u32 = val(match p.ss_increase { SlowStartIncrease::Abc { l } => l, _ => 2 }),
        "segments", "0 = unlimited", "RFC 3465 §2.2 (L = 2); Linux tcp_slow_start (none)";
    /// what a Reno-family loss reduction halves: `flight_size`, `pipe` (bytes in the
    /// network) or `cwnd`
    ssthresh_basis: SsthreshBasisName = tcp(ssthresh_basis), "`flight_size`, `pipe`, `cwnd`", "",
        "RFC 5681 eq. (4); Linux tcp_reno_ssthresh; ns-3 GetSsThresh(tcb, BytesInFlight())";
    /// leaving slow start before the first loss: `off`, `linux` (tcp_cubic.c ACK train and
    /// delay increase) or `rfc9406` (HyStart++); the profiles run it with CUBIC only
    hystart: HyStartName = tcp(hystart), "`off`, `linux`, `rfc9406`", "",
        "RFC 9406; Linux tcp_cubic.c hystart; ns-3 TcpCubic HyStart";
    /// HyStart runs only once cwnd reaches this
    hystart_low_window: u32 = tcp(hystart_low_window), "segments", "≥ 1",
        "Linux hystart_low_window";
    /// ACKs closer than this belong to one ACK train
    hystart_ack_delta: Dur = tcp(hystart_ack_delta), "duration", "",
        "Linux hystart_ack_delta_us";
    /// lower clamp of the delay-increase threshold
    hystart_delay_min: Dur = tcp(hystart_delay_min), "duration", "",
        "Linux HYSTART_DELAY_MIN; RFC 9406 MIN_RTT_THRESH";
    /// upper clamp of the delay-increase threshold
    hystart_delay_max: Dur = tcp(hystart_delay_max), "duration", "≥ hystart_delay_min",
        "Linux HYSTART_DELAY_MAX; RFC 9406 MAX_RTT_THRESH";
    /// RTT samples per round before the delay test
    hystart_min_samples: u32 = tcp(hystart_min_samples), "samples", "≥ 1",
        "Linux HYSTART_MIN_SAMPLES; RFC 9406 N_RTT_SAMPLE";
    /// Proportional Rate Reduction during fast recovery
    prr: bool = tcp(prr), "bool", "",
        "RFC 6937; Linux tcp_cwnd_reduction; ns-3 TcpPrrRecovery";
    /// RACK time-based loss detection
    /// (a profile turns it on only where `sack` is)
    rack: bool = tcp(rack, p.rack && sack), "bool", "needs `sack`",
        "RFC 8985; Linux net.ipv4.tcp_recovery = 1";
    /// tail-loss probe (a profile turns it on only where `sack` is)
    tlp: bool = tcp(tlp, p.tlp && sack), "bool", "needs `sack`",
        "RFC 8985 §7; Linux net.ipv4.tcp_early_retrans = 3";
    /// floor of the probe timeout PTO = max(2·SRTT, pto_min) (+ `pto_slack` or
    /// `tlp_max_ack_delay`)
    pto_min: Dur = tcp(pto_min), "duration", "> 0",
        "RFC 8985 §7.2 (dcnsim rfc: TLT's 10 µs); Linux TCP_TIMEOUT_MIN_US";
    /// added to the PTO when one segment is in flight; unset = the profile's (Linux:
    /// `rto_min`)
    tlp_max_ack_delay: Dur = tcp(tlp_max_ack_delay, p.tlp_max_ack_delay.map(Dur).unwrap_or(rto_min)),
        "duration", "", "RFC 8985 §7.2 WCDelAckT; Linux tcp_schedule_loss_probe (+ rto_min)";
    /// added to the PTO when more than one segment is in flight
    pto_slack: Dur = tcp(pto_slack), "duration", "",
        "RFC 8985 §7.2 (none); Linux tcp_schedule_loss_probe (+ TCP_TIMEOUT_MIN, 2 jiffies)";
    /// F-RTO spurious-timeout detection (SACK-enhanced)
    frto: bool = tcp(frto), "bool", "", "RFC 5682 §3; Linux net.ipv4.tcp_frto = 2";
    /// undo window reductions that prove spurious (timestamps, D-SACK)
    undo: bool = tcp(undo), "bool", "",
        "RFC 3522, RFC 3708, RFC 4015; Linux tcp_try_undo_*, tcp_undo_cwnd_reduction";
    /// the receiver reports duplicate segments with D-SACK
    dsack: bool = tcp(dsack), "bool", "", "RFC 2883; Linux net.ipv4.tcp_dsack = 1";
    /// receiver quick-ACK mode: ACK at once at the start and after an idle gap, even with
    /// delayed ACKs
    quickack: bool = tcp(quickack), "bool", "", "Linux tcp_enter_quickack_mode";
    /// segments ACKed at once in quick-ACK mode
    quickack_segs: u32 = tcp(quickack_segs), "segments", "≥ 1", "Linux TCP_MAX_QUICKACKS";
    /// an idle gap longer than this re-enters quick-ACK mode; unset = `rto_min`
    quickack_idle: Dur = tcp(quickack_idle, p.quickack_idle.map(Dur).unwrap_or(rto_min)),
        "duration", "> 0", "Linux tcp_event_data_recv (gap > RTO)";
    /// timer granularity: timers fire on the next multiple of this tick (0 = exact)
    timer_tick: Dur = tcp(timer_tick), "duration", "0 = exact", "Linux jiffies (CONFIG_HZ = 250)";
    /// SYN retransmission timeout (doubled per retry); unset = `rto_init`
    syn_rto: Dur = tcp(syn_rto, p.syn_rto.map(Dur).unwrap_or(rto_init)), "duration", "> 0",
        "RFC 6298 (2.1); Linux TCP_TIMEOUT_INIT; ns-3 ConnTimeout";
    /// seed the RTT estimator with the SYN / SYN-ACK round trip (not from a retransmitted SYN)
    syn_rtt_sample: bool = tcp(syn_rtt_sample), "bool", "",
        "RFC 6298 §3 (Karn); Linux tcp_synack_rtt_meas";
    /// floor of the DCTCP window after an ECN cut
    dctcp_min_cwnd: u32 = tcp(dctcp_min_cwnd), "segments", "≥ 1",
        "Linux dctcp_ssthresh (2); ns-3 TcpDctcp (1)";
    /// pure ACKs grow on the wire with the SACK blocks they carry (2 + 8 per block, padded
    /// to 4 bytes)
    sack_option_bytes: bool = tcp(sack_option_bytes), "bool", "",
        "RFC 2018 §3; Linux tcp_options_write; ns-3 TcpOptionSack";
    /// TLT: one important packet in flight, loss detection between important packets and
    /// important ACK-clocking whose payload is `adaptive` (one MSS of lost data after a
    /// loss, else one byte), `mtu` or `byte`; `off` = no TLT. Pair it with `switch.colour`
    /// (colour-aware dropping) and `dupack_thresh = 1`
    tlt: TltName = tcp(tlt), "`off`, `adaptive`, `mtu`, `byte`", "",
        "TLT (Lim et al., EuroSys 2021) §5.1, Alg. 1, Appendix A; Fig. 17";
}

impl From<TransportSpec> for TransportConfig {
    fn from(s: TransportSpec) -> Self {
        TransportConfig::resolve(&s, CcName::default())
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig::resolve(&TransportSpec::default(), CcName::default())
    }
}

impl TransportConfig {
    pub fn tcp(&self, mss: u32, timestamps: bool, path: &str) -> Result<TcpConfig, ConfigError> {
        let mut cfg = TcpConfig::profile(self.profile.to_tcp(), self.cc.to_tcp());
        self.set_tcp_keys(&mut cfg);
        cfg.mss = mss;
        cfg.timestamps = timestamps;
        cfg.ecn = self.ecn || self.cc.to_tcp().is_dctcp_family();
        cfg.rto_mode = match self.rto_mode {
            RtoModeName::Rfc6298 => RtoMode::Rfc6298,
            RtoModeName::Linux => RtoMode::Linux,
            RtoModeName::Static => RtoMode::Static(self.rto_static.0),
        };
        cfg.ss_increase = match self.slow_start {
            SlowStartName::Abc => SlowStartIncrease::Abc { l: self.abc_l },
            SlowStartName::PerAck => SlowStartIncrease::PerAck,
        };
        cfg.validate().map_err(|m| {
            // TcpConfig messages start with the field name: "mss: must be > 0".
            let (field, msg) = m.split_once(": ").unwrap_or(("", &m));
            let key = match field {
                "mss" => "mss (from packet.mtu)",
                "ss_increase" => "abc_l",
                f => TransportConfig::key_of_field(f).unwrap_or(f),
            };
            ConfigError::new(
                if key.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{key}")
                },
                msg.to_string(),
            )
        })?;
        Ok(cfg)
    }
}

// ---- generated documentation ----

/// One value as a scenario writes it (`"1ms"`, `true`, `10`; `none` when unset).
fn md_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "none".into(),
        v => format!("`{v}`"),
    }
}

fn resolved_json(profile: ProfileName, cc: CcName) -> serde_json::Map<String, serde_json::Value> {
    let spec = TransportSpec {
        profile: Some(profile),
        ..TransportSpec::default()
    };
    match serde_json::to_value(TransportConfig::resolve(&spec, cc)) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => unreachable!("TransportConfig serializes to a map"),
    }
}

/// The `[transports.NAME]` key table of docs/scenario.md (defaults of the `rfc` profile with
/// `cc = "cubic"`).
pub fn transport_keys_md() -> String {
    let d = resolved_json(ProfileName::Rfc, CcName::Cubic);
    let mut s = String::from("| key | type | default | range | meaning |\n|---|---|---|---|---|\n");
    for k in TRANSPORT_KEYS {
        s += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            k.name,
            k.unit,
            md_value(&d[k.name]),
            k.range,
            k.doc.trim()
        );
    }
    s
}

/// The profile table of docs/tcp.md: every TCP behaviour key (a key with sources) under
/// `rfc`, `linux` and `ns3`. A value that depends on `cc` is given as
/// "newreno's value; cc: value" for the other congestion controls that differ.
pub fn tcp_profiles_md() -> String {
    let profiles = [ProfileName::Rfc, ProfileName::Linux, ProfileName::Ns3];
    // Every congestion control is a built-in; newreno's values are the base.
    let mut ccs = BUILTINS.to_vec();
    ccs.sort_by_key(|&(_, cc)| cc != CcName::NewReno);
    let vals: Vec<Vec<_>> = profiles
        .iter()
        .map(|&p| ccs.iter().map(|&(_, cc)| resolved_json(p, cc)).collect())
        .collect();
    let mut s = String::from("| key | rfc | linux | ns3 | sources |\n|---|---|---|---|---|\n");
    for k in TRANSPORT_KEYS.iter().filter(|k| !k.source.is_empty()) {
        s += &format!("| `{}` |", k.name);
        for per_cc in &vals {
            let base = &per_cc[0][k.name];
            let mut cell = md_value(base);
            for (m, (cc, _)) in per_cc.iter().zip(&ccs).skip(1) {
                if &m[k.name] != base {
                    cell += &format!("; {cc}: {}", md_value(&m[k.name]));
                }
            }
            s += &format!(" {cell} |");
        }
        s += &format!(" {} |\n", k.source);
    }
    s
}
