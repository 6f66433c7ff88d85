//! PIAS multi-level feedback queues (Bai et al., NSDI 2015) and ResQueue (Rezaei & Vamanan,
//! WWW 2020, paper 003) as a host-side tagging scheme.
//!
//! **PIAS.** The sender tags every data packet with a priority from the number of bytes its
//! flow has sent so far, using K−1 demotion thresholds α_1 < … < α_{K−1}: a packet is at
//! level `i` (0-based) iff exactly `i` thresholds are ≤ the bytes its flow sent before it.
//! So the first α_1 bytes of every flow go at the top level, the next α_2 − α_1 bytes one
//! level down, and so on (RESQ §3.1: "a flow is demoted from higher-priority queues to
//! lower-priority queues according to their number of sent bytes"). The switches serve the
//! queues in strict priority (configure `[switch] scheduler = "strict"`) and mark per port
//! (`ecn.occupancy = "port"`, PIAS-NS2 `ECN_scheme_ = 2`); those are switch settings, not
//! part of this scheme.
//!
//! **ResQueue** (`resqueue = true`). Queue 0 is reserved for retransmissions (the paper's
//! "queue level-1"; its dedicated buffer is `[switch] reserved`), so the normal PIAS levels
//! occupy queues 1…K. A retransmitted packet is tagged with its PIAS level computed from
//! the flow's bytes sent so far, minus one (RESQ §3.1): a short flow's retransmission lands
//! in queue 0, a large flow's moves up one level (queue 4 → 3, not reserved).
//!
//! Per-flow state is one `u64` (the highest sequence byte sent) in a `Vec` indexed by flow
//! id; RESQ §3.3 keeps no per-flow drop history ("prioritizing retransmitted packets").
//!
//! Choices (mechanisms §5.4, §7), each a parameter:
//! - `promote_on = "any"` (default) promotes every retransmission (fast, recovery, timeout);
//!   `"timeout"` only the go-back-N window sent after a retransmission timeout. The paper says
//!   both: §3.1 "retransmitting a packet (or a window of packets)", §3 "upon timeouts, the
//!   priority is decremented" (spec §5.4.2 CHOICE: any).
//! - `acks = "top"` (default): pure ACKs go at the highest *normal* level: queue 0 for PIAS
//!   (PIAS-NS2 leaves ACKs untagged, i.e. in the highest queue), queue 1 for ResQueue, which
//!   keeps queue 0 for retransmitted data only (RESQ §4.4: "our highest priority level is
//!   reserved for retransmitted packets only"). `"highest"` = queue 0 always; `"class"` =
//!   the class's `ack_priority` (untouched).

use super::{Scheme, TxCtx};
use crate::packet::{flags, Packet, PktKind};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// PIAS-NS2 threshold tables, in packets of 1460 B (mechanisms §5.4.1; PIAS-NS2 HEAD 5fb5867),
/// one column per load, ordered 90/80/70/60/50 %.
const PRESET_LOADS: [u32; 5] = [90, 80, 70, 60, 50];
const WEBSEARCH_PKTS: [[u64; 5]; 7] = [
    [759, 909, 999, 956, 1059],
    [1132, 1329, 1305, 1381, 1412],
    [1456, 1648, 1564, 1718, 1643],
    [1737, 1960, 1763, 2028, 1869],
    [2010, 2143, 1956, 2297, 2008],
    [2199, 2337, 2149, 2551, 2115],
    [2325, 2484, 2309, 2660, 2184],
];
const DATAMINING_PKTS: [[u64; 5]; 7] = [
    [750, 745, 907, 840, 805],
    [1083, 1083, 1301, 1232, 1106],
    [1416, 1391, 1619, 1617, 1401],
    [13705, 13689, 12166, 11950, 10693],
    [14952, 14936, 12915, 12238, 11970],
    [21125, 21149, 21313, 21494, 21162],
    [28253, 27245, 26374, 25720, 22272],
];
/// Packet size the PIAS-NS2 tables count in.
pub const PRESET_PKT_BYTES: u64 = 1460;

/// Names accepted by `preset`.
pub fn preset_names() -> Vec<String> {
    let mut v = Vec::new();
    for w in ["websearch", "datamining"] {
        for l in PRESET_LOADS.iter().rev() {
            v.push(format!("{w}_{l}"));
        }
    }
    v
}

/// The thresholds (bytes) of a named preset, e.g. `websearch_60`.
pub fn preset(name: &str) -> Option<Vec<u64>> {
    let (w, l) = name.rsplit_once('_')?;
    let table = match w {
        "websearch" => &WEBSEARCH_PKTS,
        "datamining" => &DATAMINING_PKTS,
        _ => return None,
    };
    let load: u32 = l.parse().ok()?;
    let col = PRESET_LOADS.iter().position(|&x| x == load)?;
    Some(
        table
            .iter()
            .map(|row| row[col] * PRESET_PKT_BYTES)
            .collect(),
    )
}

/// Which retransmissions ResQueue promotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PromoteOn {
    /// Every retransmitted packet (fast retransmit, recovery and timeout).
    #[default]
    Any,
    /// Only packets retransmitted after a retransmission timeout.
    Timeout,
}

/// Where pure ACKs go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AckQueue {
    /// The highest normal level (queue 0 for PIAS, queue 1 with ResQueue).
    #[default]
    Top,
    /// Queue 0.
    Highest,
    /// Leave the class's `ack_priority`.
    Class,
}

/// `[scheme] kind = "pias"`. Exactly one of `preset` and `thresholds`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct PiasConfig {
    /// A PIAS-NS2 threshold table: `websearch_<load>` or `datamining_<load>`, load ∈ 50…90.
    pub preset: Option<String>,
    /// Demotion thresholds in bytes sent, strictly increasing (K−1 thresholds for K levels).
    pub thresholds: Option<Vec<Bytes>>,
    /// ResQueue: queue 0 is reserved for retransmissions, normal levels start at queue 1.
    pub resqueue: bool,
    pub promote_on: PromoteOn,
    pub acks: AckQueue,
}

impl PiasConfig {
    /// The thresholds in bytes, or (key, message).
    pub fn resolved(&self) -> Result<Vec<u64>, (String, String)> {
        match (&self.preset, &self.thresholds) {
            (Some(_), Some(_)) => Err((
                "thresholds".into(),
                "expected one of `preset` and `thresholds`, got both".into(),
            )),
            (None, None) => Err((
                "thresholds".into(),
                format!(
                    "missing key: expected `thresholds` (bytes, strictly increasing) or a \
                     `preset` (one of {})",
                    preset_names().join(", ")
                ),
            )),
            (Some(p), None) => preset(p).ok_or_else(|| {
                (
                    "preset".into(),
                    format!(
                        "unknown preset {p:?}; expected one of {}",
                        preset_names().join(", ")
                    ),
                )
            }),
            (None, Some(t)) => Ok(t.iter().map(|b| b.0).collect()),
        }
    }

    /// Checks the configuration against the number of switch queues.
    pub fn check(&self, queues: u8) -> Result<(), (String, String)> {
        let t = self.resolved()?;
        let key = if self.preset.is_some() {
            "preset"
        } else {
            "thresholds"
        };
        if t.is_empty() {
            // One level: every packet stays in the top queue and PIAS does nothing.
            return Err((
                key.into(),
                "expected at least one threshold (with none, PIAS has one level and does \
                 nothing)"
                    .into(),
            ));
        }
        if let Some(i) = (0..t.len()).find(|&i| t[i] == 0 || (i > 0 && t[i] <= t[i - 1])) {
            return Err((
                format!("{key}[{i}]"),
                format!(
                    "expected strictly increasing thresholds > 0 bytes, got {} after {}",
                    t[i],
                    if i == 0 { 0 } else { t[i - 1] }
                ),
            ));
        }
        let reserved = self.resqueue as usize;
        let max = (queues as usize).saturating_sub(1 + reserved);
        if t.len() > max {
            let why = if self.resqueue {
                format!(
                    "[switch] has {queues} queues and resqueue reserves queue 0, so at most \
                     {max} thresholds ({} levels in queues 1..{}) fit",
                    max + 1,
                    queues.saturating_sub(1)
                )
            } else {
                format!("[switch] has {queues} queues, so at most {max} thresholds fit")
            };
            return Err((key.into(), format!("got {} thresholds; {why}", t.len())));
        }
        if self.resqueue && queues < 2 {
            return Err((
                "resqueue".into(),
                format!("expected [switch] queues ≥ 2 (queue 0 is the retransmission queue), got {queues}"),
            ));
        }
        Ok(())
    }
}

pub struct Pias {
    /// Demotion thresholds in bytes, strictly increasing.
    thresholds: Vec<u64>,
    /// Queue of the first normal level (1 with ResQueue).
    base: u8,
    resqueue: bool,
    promote_on: PromoteOn,
    acks: AckQueue,
    /// Per flow: one past the highest payload byte sent so far.
    sent: Vec<u64>,
}

impl Pias {
    /// Builds from a config already checked with [`PiasConfig::check`].
    pub fn new(cfg: &PiasConfig) -> Pias {
        let thresholds = cfg.resolved().expect("checked PIAS config");
        Pias {
            thresholds,
            base: cfg.resqueue as u8,
            resqueue: cfg.resqueue,
            promote_on: cfg.promote_on,
            acks: cfg.acks,
            sent: Vec::new(),
        }
    }

    /// PIAS level (0 = top) of a flow that has sent `bytes`: the number of thresholds
    /// ≤ `bytes` (PIAS §4.1; thresholds are few, a linear scan beats a binary search).
    #[inline]
    pub fn level(&self, bytes: u64) -> u8 {
        self.thresholds.iter().take_while(|&&t| t <= bytes).count() as u8
    }

    /// Queue for a data packet of flow `flow` starting at byte `seq` with `payload` bytes.
    #[inline]
    pub fn tag_data(&mut self, flow: u32, seq: u64, payload: u32, retx: bool, rto: bool) -> u8 {
        let f = flow as usize;
        if f >= self.sent.len() {
            self.sent.resize(f + 1, 0);
        }
        let end = seq + payload as u64;
        if end > self.sent[f] {
            self.sent[f] = end;
        }
        let promote = self.resqueue
            && retx
            && match self.promote_on {
                PromoteOn::Any => true,
                PromoteOn::Timeout => rto,
            };
        if promote {
            // RESQ §3.1: "first, it finds the appropriate queue level based on its number of
            // sent bytes ..., and, second, it subtracts one from the calculated value because
            // of its drop history". Bytes sent so far = everything the flow has sent.
            self.base + self.level(self.sent[f]) - 1
        } else if retx {
            // Plain PIAS (or ResQueue not promoting this one): a retransmission carries the
            // flow's current level, like any packet it sends now (PIAS §4.1, bytes sent).
            self.base + self.level(self.sent[f])
        } else {
            // A first transmission: the bytes the flow sent before it (= its first byte).
            self.base + self.level(seq)
        }
    }
}

impl Scheme for Pias {
    #[inline]
    fn on_host_tx(&mut self, pkt: &mut Packet, _ctx: &TxCtx) {
        match pkt.kind {
            PktKind::Data => {
                pkt.class = self.tag_data(
                    pkt.flow,
                    pkt.seq,
                    pkt.payload,
                    pkt.has(flags::RETX),
                    pkt.has(flags::RTO_RETX),
                );
            }
            PktKind::Ack => match self.acks {
                AckQueue::Top => pkt.class = self.base,
                AckQueue::Highest => pkt.class = 0,
                AckQueue::Class => {}
            },
            PktKind::Raw
            | PktKind::Probe
            | PktKind::Syn
            | PktKind::SynAck
            | PktKind::Fin
            | PktKind::Nack
            | PktKind::Cnp => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn presets_resolve() {
        assert_eq!(preset("websearch_90").unwrap()[0], 759 * 1460);
        assert_eq!(preset("datamining_50").unwrap()[6], 22272 * 1460);
        assert!(preset("websearch_55").is_none());
        assert!(preset("bogus_50").is_none());
        for n in preset_names() {
            let t = preset(&n).unwrap();
            assert_eq!(t.len(), 7);
            assert!(t.windows(2).all(|w| w[0] < w[1]), "{n}");
        }
    }
}
