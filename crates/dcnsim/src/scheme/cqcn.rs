//! Cross-queue congestion notification (CQCN), the switch half of LPF's "TCP+" (LPF §5;
//! mechanisms §2.8, §5.1.5).
//!
//! Low-priority senders emit small probes in the high-priority queue; "similar to DCTCP,
//! probe packets get marked if the length of the high priority queue exceeds a certain
//! threshold – indicating priority-induced congestion". The receiver echoes the mark and the
//! sender halts while echoes come back marked (see `sim::flow`). Only probes are marked here,
//! so high-priority data (ECN-capable or not) is untouched. The threshold is not given by the
//! paper: sweep it (the LPF reproduction does).

use super::{EnqCtx, Scheme, Verdict};
use crate::packet::{Packet, PktKind};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CqcnConfig {
    /// Mark a probe when the queue it joins holds at least this many bytes.
    pub threshold: Bytes,
}

impl Default for CqcnConfig {
    fn default() -> Self {
        // A few full frames: congestion in the high-priority queue, not a single packet.
        CqcnConfig {
            threshold: Bytes(10_000),
        }
    }
}

pub struct Cqcn {
    pub cfg: CqcnConfig,
    pub probes_marked: u64,
}

impl Cqcn {
    pub fn new(cfg: CqcnConfig) -> Self {
        Cqcn {
            cfg,
            probes_marked: 0,
        }
    }
}

impl Scheme for Cqcn {
    #[inline]
    fn on_enqueue(&mut self, pkt: &mut Packet, ctx: &EnqCtx) -> Verdict {
        if pkt.kind == PktKind::Probe && ctx.q_bytes >= self.cfg.threshold.0 {
            self.probes_marked += 1;
            return Verdict::Mark;
        }
        Verdict::Accept
    }
}
