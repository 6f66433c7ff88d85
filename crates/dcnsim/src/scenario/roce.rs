//! `[transports.NAME.roce]`: the parameters of a RoCEv2 transport (`kind = "roce"`), its own
//! table so that a RoCE transport carries no TCP key (docs/rdma.md).
//!
//! Resolution: a key the user wrote wins; otherwise the value of `preset` (`tlt`, the TLT
//! RoCE reference config, by default; `paper`, the DCQCN paper's constants). One table
//! ([`ROCE_KEYS`]) documents every key; docs/scenario.md carries it ([`roce_keys_md`]).

use super::{ConfigError, PacketConfig};
use crate::packet::MAX_INT_HOPS;
use crate::transport::roce::dcqcn::DcqcnParams;
use crate::transport::roce::hpcc::HpccParams;
use crate::transport::roce::tlt::RoceTlt;
use crate::transport::roce::{RoceCc, RoceParams, RoceRecovery, AETH, CNP_BODY, ROCE_HEADERS};
use crate::units::{Bw, Bytes, Dur};
use dcnsim_engine::{Rate, Time};
use serde::{Deserialize, Serialize};

/// The rate control of a RoCE transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoceCcName {
    #[default]
    Dcqcn,
    /// Line rate always.
    None,
    /// HPCC: window and rate from INT (mechanisms §4.11).
    Hpcc,
}

/// The loss recovery of a RoCE transport (docs/rdma.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoceRecoveryName {
    /// Go-back-N with the static `rto`.
    #[default]
    Gbn,
    /// IRN: selective repeat, BDP-FC, RTO_low / RTO_high.
    Irn,
    /// DCQCN+SACK: IRN's selective repeat without the BDP cap, static `rto`.
    Sack,
}

/// TLT on a RoCE transport (docs/rdma.md; mechanisms §5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoceTltName {
    #[default]
    Off,
    /// The paper's variant for the recovery: window-based on IRN, rate-based otherwise.
    On,
    /// Rate-based marking (TLT §5.2).
    Rate,
    /// Window-based marking (TLT §5.1; selective repeat only).
    Window,
}

/// Which constants the unset DCQCN keys take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DcqcnPreset {
    /// The TLT RoCE reference config (mechanisms §4.9).
    #[default]
    Tlt,
    /// The DCQCN paper (Zhu et al. 2015).
    Paper,
}

impl DcqcnPreset {
    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            DcqcnPreset::Tlt => "tlt",
            DcqcnPreset::Paper => "paper",
        }
    }
}

/// Which `roce` keys a scenario wrote. Provenance, not a value: two configs with the same
/// values are equal whichever keys were written (a resolved config written back out and read
/// again has every key written).
#[derive(Clone, Debug, Default)]
pub struct Written(pub Vec<&'static str>);

impl PartialEq for Written {
    fn eq(&self, _: &Written) -> bool {
        true
    }
}

impl Written {
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains(&key)
    }
}

macro_rules! roce_keys {
    (($p:ident) $( $(#[doc = $doc:literal])+ $key:ident : $ty:ty = $def:expr, $unit:literal, $range:literal; )*) => {
        /// `[transports.NAME.roce]` as written: every key optional.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct RoceSpec {
            pub preset: Option<DcqcnPreset>,
            $( pub $key: Option<$ty>, )*
        }

        /// `[transports.NAME.roce]`, resolved: every key has its value.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(from = "RoceSpec")]
        pub struct RoceConfig {
            pub preset: DcqcnPreset,
            $( $(#[doc = $doc])+ pub $key: $ty, )*
            /// The keys the user wrote (the others come from `preset`), so that an error
            /// about a preset's value names the table, not a key that is not in the input.
            #[serde(skip)]
            pub written: Written,
        }

        impl From<RoceSpec> for RoceConfig {
            fn from(s: RoceSpec) -> Self {
                let preset = s.preset.unwrap_or_default();
                let $p = match preset {
                    DcqcnPreset::Tlt => DcqcnParams::tlt(),
                    DcqcnPreset::Paper => DcqcnParams::paper(),
                };
                let written = Written(
                    [$( s.$key.is_some().then_some(stringify!($key)), )*]
                        .into_iter()
                        .flatten()
                        .collect(),
                );
                RoceConfig {
                    preset,
                    $( $key: s.$key.unwrap_or_else(|| $def), )*
                    written,
                }
            }
        }

        /// Every `roce` key, in table order: (name, unit, range, doc).
        pub const ROCE_KEYS: &[(&str, &str, &str, &str)] = &[
            ("preset", "`tlt`, `paper`", "",
             "the constants of every DCQCN key not written: `tlt` (TLT RoCE reference config) \
              or `paper` (DCQCN paper)"),
            $( (stringify!($key), $unit, $range, concat!($($doc),+)), )*
        ];
    };
}

fn dur(t: Time) -> Dur {
    Dur(t)
}
fn bw(bps: f64) -> Bw {
    Bw(bps.round() as u64)
}

roce_keys! {
    (p)
    /// rate control: `dcqcn` (DCQCN's reaction and notification points), `hpcc` (HPCC: window
    /// and rate from INT) or `none` (line rate)
    cc: RoceCcName = RoceCcName::Dcqcn, "`dcqcn`, `hpcc`, `none`", "";
    /// payload bytes per data packet (TLT / HPCC simulator `PACKET_PAYLOAD_SIZE`)
    payload: Bytes = Bytes(1000), "bytes", "1 ..= packet.mtu − 44";
    /// ACK every N in-order packets (and the message's last)
    ack_every: u32 = 1, "packets", "≥ 1";
    /// loss recovery: `gbn` (go-back-N), `irn` (IRN: selective repeat, BDP-FC, two timeouts;
    /// without PFC: an error if `switch.pfc` makes a queue of its class lossless) or `sack`
    /// (DCQCN+SACK: IRN's selective repeat without the BDP cap)
    recovery: RoceRecoveryName = RoceRecoveryName::Gbn, "`gbn`, `irn`, `sack`", "";
    /// static retransmission timeout of `gbn` and `sack` (TLT §6: 4 ms); every RoCE timer
    /// restarts on each data packet sent and each ACK or NACK received (InfiniBand's
    /// transport timer, [rdma.md](rdma.md))
    rto: Dur = Dur::ms(4), "duration", "> 0";
    /// `gbn` receiver: an out-of-order packet is NACKed unless the same expected PSN was
    /// NACKed less than this long ago (0 = every one); the HPCC simulator's NACK generation
    /// interval, which the TLT RoCE reference builds on
    nack_interval: Dur = Dur::us(500), "duration", "";
    /// `irn`: RTO_low, while at most `rto_low_pkts` packets are outstanding (TLT reference
    /// code `IrnRtoLow`)
    rto_low: Dur = Dur::us(454), "duration", "> 0";
    /// `irn`: RTO_high, otherwise (TLT: base latency plus the largest one-hop queueing delay)
    rto_high: Dur = Dur::us(1930), "duration", "> 0";
    /// `irn`: N of RTO_low (IRN paper: 3)
    rto_low_pkts: u32 = 3, "packets", "";
    /// `irn` BDP-FC: at most ⌈bdp / payload⌉ packets outstanding (TLT reference code `IrnBdp`,
    /// 3 µs × 50 Gb/s)
    bdp: Bytes = Bytes(18750), "bytes", "> 0";
    /// `irn`: if set, the BDP is the QP line rate × this base RTT instead of `bdp`; `hpcc`: T for
    /// every QP (unset: each QP's own unloaded RTT over its path)
    base_rtt: Option<Dur> = None, "duration", "> 0";
    /// TLT (Lim et al., EuroSys 2021): `rate` marks the message's last packet, one in every
    /// `tlt_every` and the first and last of each retransmission round important (§5.2);
    /// `window` keeps one important packet in flight with important ACK-clocking (§5.1;
    /// `irn` / `sack` only); `on` = `window` with `irn` and with `hpcc` over `sack`, `rate`
    /// otherwise (mechanisms §5.5.3). Control packets are important. Pair it with `switch.colour`
    tlt: RoceTltName = RoceTltName::Off, "`off`, `on`, `rate`, `window`", "";
    /// rate-based TLT: one important packet in every N sent (TLT §7.1: 96; 0 = none)
    tlt_every: u32 = 96, "packets", "";
    /// the QP's line rate; unset = the host link rate (every host link must then have one rate)
    line_rate: Option<Bw> = None, "rate", "> 0";
    /// NP: at most one CNP per flow per interval (DCQCN §3.2)
    cnp_interval: Dur = dur(p.cnp_interval), "duration", "";
    /// α gain g (DCQCN §3.3 Eq. 1)
    g: f64 = p.g, "number", "(0, 1]";
    /// α at the start
    alpha_init: f64 = p.alpha_init, "number", "[0, 1]";
    /// K: α ← (1 − g)·α per interval without a CNP (DCQCN §3.3 Eq. 2; `ALPHA_RESUME_INTERVAL`)
    alpha_interval: Dur = dur(p.alpha_interval), "duration", "> 0";
    /// at most one rate decrease per interval (`RATE_DECREASE_INTERVAL`; 0 = every CNP)
    rate_decrease_interval: Dur = dur(p.rate_decrease_interval), "duration", "";
    /// T: rate-increase timer (DCQCN §3.3; `RP_TIMER`)
    timer: Dur = dur(p.timer), "duration", "> 0";
    /// B: bytes per byte-counter increase event (DCQCN §3.3; 0 = no byte counter)
    byte_counter: Bytes = Bytes(p.byte_counter), "bytes", "";
    /// F: increase events of fast recovery (DCQCN §3.3; `FAST_RECOVERY_TIMES`)
    fast_recovery: u32 = p.fast_recovery, "events", "";
    /// R_AI: additive increase of the target rate (`RATE_AI`)
    rate_ai: Bw = bw(p.rate_ai), "rate", "";
    /// R_HAI: hyper increase of the target rate (`RATE_HAI`)
    rate_hai: Bw = bw(p.rate_hai), "rate", "";
    /// `hpcc` η: target utilization (HPCC simulator `U_TARGET`)
    eta: f64 = HpccParams::default().eta, "number", "(0, 1]";
    /// `hpcc` maxStage: additive steps before a multiplicative one (`MI_THRESH`)
    max_stage: u32 = HpccParams::default().max_stage, "steps", "";
    /// `hpcc` W_AI as a rate: the window grows by w_ai × T per step (`RATE_AI` of the TLT RoCE
    /// config)
    w_ai: Bw = bw(HpccParams::default().w_ai), "rate", "≤ line rate";
    /// `hpcc`: switch egress ports that push INT onto a data packet (`IntHeader::maxHop`)
    int_hops: u32 = HpccParams::default().int_hops as u32, "hops", "1 ..= 8";
    /// floor of the rate (`MIN_RATE`; DCQCN and HPCC)
    min_rate: Bw = bw(p.min_rate), "rate", "> 0, ≤ line rate";
    /// R_T ← R_C on every decrease (the paper); false = only after an increase event
    /// (`CLAMP_TARGET_RATE 0`)
    clamp_target_rate: bool = p.clamp_target_rate, "bool", "";
}

impl Default for RoceConfig {
    fn default() -> Self {
        RoceSpec::default().into()
    }
}

impl RoceConfig {
    /// The runtime parameters, for hosts whose links run at `host_rate` (None: they
    /// differ). Errors name the key under `path`.
    pub fn params(
        &self,
        pkt: &PacketConfig,
        host_rate: Option<Rate>,
        path: &str,
    ) -> Result<RoceParams, ConfigError> {
        let err = |k: &str, m: String| Err(ConfigError::new(format!("{path}.{k}"), m));
        let hdr = pkt.ip_header + ROCE_HEADERS;
        let max_payload = pkt.mtu.saturating_sub(hdr) as u64;
        if self.payload.0 == 0 || self.payload.0 > max_payload {
            return err(
                "payload",
                format!(
                    "expected 1 to {max_payload} bytes (packet.mtu {} minus IP and RoCEv2 \
                     headers {hdr}), got {}",
                    pkt.mtu, self.payload.0
                ),
            );
        }
        if self.ack_every == 0 {
            return err("ack_every", "expected at least 1".into());
        }
        if self.rto.0 == 0 {
            return err("rto", "expected a duration > 0".into());
        }
        if self.rto_low.0 == 0 {
            return err("rto_low", "expected a duration > 0".into());
        }
        if self.rto_high.0 == 0 {
            return err("rto_high", "expected a duration > 0".into());
        }
        if self.bdp.0 == 0 {
            return err("bdp", "expected at least 1 byte".into());
        }
        if self.base_rtt.is_some_and(|d| d.0 == 0) {
            return err("base_rtt", "expected a duration > 0".into());
        }
        let line = match (self.line_rate, host_rate) {
            (Some(b), _) if b.0 == 0 => return err("line_rate", "expected a rate > 0".into()),
            (Some(b), _) => b.rate(),
            (None, Some(r)) => r,
            (None, None) => {
                return err(
                    "line_rate",
                    "the host links have different rates: set the QP line rate".into(),
                )
            }
        };
        if !(self.g > 0.0 && self.g <= 1.0) {
            return err("g", format!("expected a number in (0, 1], got {}", self.g));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return err(
                "alpha_init",
                format!("expected a number in [0, 1], got {}", self.alpha_init),
            );
        }
        if self.alpha_interval.0 == 0 {
            return err("alpha_interval", "expected a duration > 0".into());
        }
        if self.timer.0 == 0 {
            return err("timer", "expected a duration > 0".into());
        }
        // A preset's rate may exceed a slow line: then the error names the table the user
        // wrote (`path`), not a key that is not in the input.
        let over_line = |k: &str, what: &str, v: u64| {
            let m = format!(
                "expected {what} at most the line rate ({} bps), got {v} bps",
                line.0
            );
            if self.written.contains(k) {
                err(k, m)
            } else {
                Err(ConfigError::new(
                    path.to_string(),
                    format!(
                        "{k} from preset = \"{}\" is {v} bps, above the line rate ({} bps): \
                         set {k} (or line_rate)",
                        self.preset.name(),
                        line.0
                    ),
                ))
            }
        };
        if self.min_rate.0 == 0 {
            return err("min_rate", "expected a rate > 0".into());
        }
        if self.min_rate.0 > line.0 {
            return over_line("min_rate", "a rate > 0 and", self.min_rate.0);
        }
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return err(
                "eta",
                format!("expected a number in (0, 1], got {}", self.eta),
            );
        }
        if self.w_ai.0 > line.0 {
            return over_line("w_ai", "a rate", self.w_ai.0);
        }
        if self.int_hops == 0 || self.int_hops > MAX_INT_HOPS as u32 {
            return err(
                "int_hops",
                format!("expected 1 to {MAX_INT_HOPS}, got {}", self.int_hops),
            );
        }
        if self.cc == RoceCcName::Hpcc && self.recovery == RoceRecoveryName::Irn {
            return err(
                "recovery",
                "HPCC's window replaces IRN's BDP window: use `sack` (HPCC with SACK, as in \
                 TLT) or `gbn`"
                    .into(),
            );
        }
        let cc = match self.cc {
            RoceCcName::None => RoceCc::None,
            RoceCcName::Hpcc => RoceCc::Hpcc(HpccParams {
                eta: self.eta,
                max_stage: self.max_stage,
                w_ai: self.w_ai.0 as f64,
                min_rate: self.min_rate.0 as f64,
                int_hops: self.int_hops as u8,
                base_rtt: self.base_rtt.map(|d| d.0),
            }),
            RoceCcName::Dcqcn => RoceCc::Dcqcn(DcqcnParams {
                cnp_interval: self.cnp_interval.0,
                g: self.g,
                alpha_init: self.alpha_init,
                alpha_interval: self.alpha_interval.0,
                rate_decrease_interval: self.rate_decrease_interval.0,
                timer: self.timer.0,
                byte_counter: self.byte_counter.0,
                fast_recovery: self.fast_recovery,
                rate_ai: self.rate_ai.0 as f64,
                rate_hai: self.rate_hai.0 as f64,
                min_rate: self.min_rate.0 as f64,
                clamp_target_rate: self.clamp_target_rate,
            }),
        };
        let recovery = match self.recovery {
            RoceRecoveryName::Gbn => RoceRecovery::Gbn,
            RoceRecoveryName::Sack => RoceRecovery::Sack,
            RoceRecoveryName::Irn => {
                // mechanisms §4.10: BDP-FC caps outstanding packets at ⌈BDP / packet⌉.
                let bdp_bytes = match self.base_rtt {
                    Some(rtt) => {
                        (line.0 as u128 * rtt.0 as u128 / (8 * dcnsim_engine::SEC as u128)) as u64
                    }
                    None => self.bdp.0,
                };
                RoceRecovery::Irn {
                    bdp: bdp_bytes.div_ceil(self.payload.0).max(1),
                    rto_low: self.rto_low.0,
                    rto_high: self.rto_high.0,
                    low_pkts: self.rto_low_pkts as u64,
                }
            }
        };
        // mechanisms §5.5.3 [CHOICE]: rate-based for both DCQCN flavours (go-back-N and
        // SACK), window-based for IRN and for HPCC with selective repeat.
        let windowed = self.recovery == RoceRecoveryName::Irn
            || (self.cc == RoceCcName::Hpcc && self.recovery == RoceRecoveryName::Sack);
        let tlt =
            match (self.tlt, self.recovery) {
                (RoceTltName::Off, _) => RoceTlt::Off,
                (RoceTltName::Window, RoceRecoveryName::Gbn) => return err(
                    "tlt",
                    "window-based TLT needs selective repeat (recovery = \"irn\" or \"sack\"); \
                     go-back-N uses tlt = \"rate\""
                        .into(),
                ),
                (RoceTltName::Window, _) => RoceTlt::Window,
                (RoceTltName::On, _) if windowed => RoceTlt::Window,
                (RoceTltName::Rate | RoceTltName::On, _) => RoceTlt::Rate {
                    every: self.tlt_every,
                },
            };
        let data_overhead = pkt.eth_overhead + hdr;
        Ok(RoceParams {
            tlt,
            recovery,
            payload: self.payload.0 as u32,
            ack_every: self.ack_every,
            rto: self.rto.0,
            nack_interval: self.nack_interval.0,
            line_rate: line,
            cc,
            data_overhead,
            ack_wire: (data_overhead + AETH).max(pkt.min_wire),
            cnp_wire: (data_overhead + CNP_BODY).max(pkt.min_wire),
        })
    }
}

/// The `[transports.NAME.roce]` key table of docs/scenario.md and docs/rdma.md (defaults of
/// the `tlt` preset; the `paper` column where it differs).
pub fn roce_keys_md() -> String {
    let t = serde_json::to_value(RoceConfig::default()).unwrap_or_default();
    let spec = RoceSpec {
        preset: Some(DcqcnPreset::Paper),
        ..RoceSpec::default()
    };
    let p = serde_json::to_value(RoceConfig::from(spec)).unwrap_or_default();
    let v = |x: &serde_json::Value| match x {
        serde_json::Value::Null => "none".to_string(),
        x => format!("`{x}`"),
    };
    let mut s = String::from(
        "| key | type | default (`tlt`) | `paper` | range | meaning |\n|---|---|---|---|---|---|\n",
    );
    for (name, unit, range, doc) in ROCE_KEYS {
        let (a, b) = (&t[name], &p[name]);
        let paper = if a == b || *name == "preset" {
            String::new()
        } else {
            v(b)
        };
        s += &format!(
            "| `{name}` | {unit} | {} | {paper} | {range} | {} |\n",
            v(a),
            doc.trim()
        );
    }
    s
}
