//! A small scheme that exercises every hook, used by the tests of the hook API.
//!
//! - host transmit: packets of flows whose id is odd are coloured red, the others green;
//! - switch enqueue: red packets are dropped when their queue holds ≥ `red_threshold`
//!   bytes (unset: never); packets flagged as retransmissions move to `retx_class`; packets of class
//!   `mark_class` are CE-marked;
//! - dequeue and receive are counted;
//! - `drop_data_seq`: the first data packet carrying this `seq` (a TCP byte offset, a RoCE
//!   PSN) is dropped at its first switch, once (a single, exactly placed loss);
//! - `drop_red_seqs`: each entry drops, once, the next *red* data packet carrying that `seq`
//!   at a switch (colour-aware loss placed exactly: green packets pass, as they would at a
//!   colour threshold); `keep_colour` leaves the transport's colours alone on host transmit;
//! - `drop_retx_seqs`: each entry drops, once, the next *retransmitted* data packet (flagged
//!   `RETX`) carrying that `seq` at a switch (a loss placed in a later round).

use super::{EnqCtx, Scheme, TxCtx, Verdict};
use crate::packet::{colour, flags, Packet};
use crate::units::Bytes;
use dcnsim_engine::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TestSchemeConfig {
    pub red_threshold: Option<Bytes>,
    pub retx_class: Option<u8>,
    pub mark_class: Option<u8>,
    pub drop_data_seq: Option<u64>,
    pub drop_red_seqs: Vec<u64>,
    pub drop_retx_seqs: Vec<u64>,
    pub keep_colour: bool,
}

#[derive(Default, Debug)]
pub struct TestCounters {
    pub tagged: u64,
    pub dropped: u64,
    pub reclassed: u64,
    pub marked: u64,
    pub dequeued: u64,
    pub received: u64,
}

pub struct TestScheme {
    pub cfg: TestSchemeConfig,
    pub n: TestCounters,
}

impl TestScheme {
    pub fn new(cfg: TestSchemeConfig) -> Self {
        TestScheme {
            cfg,
            n: TestCounters::default(),
        }
    }
}

impl Scheme for TestScheme {
    fn on_host_tx(&mut self, pkt: &mut Packet, _ctx: &TxCtx) {
        if self.cfg.keep_colour {
            return;
        }
        if pkt.flow % 2 == 1 {
            pkt.colour = colour::RED;
            self.n.tagged += 1;
        } else {
            pkt.colour = colour::GREEN;
        }
    }
    fn on_enqueue(&mut self, pkt: &mut Packet, ctx: &EnqCtx) -> Verdict {
        if pkt.kind == crate::packet::PktKind::Data && self.cfg.drop_data_seq == Some(pkt.seq) {
            self.cfg.drop_data_seq = None;
            self.n.dropped += 1;
            return Verdict::Drop;
        }
        if pkt.kind == crate::packet::PktKind::Data && pkt.flags & flags::RETX != 0 {
            if let Some(i) = self.cfg.drop_retx_seqs.iter().position(|&s| s == pkt.seq) {
                self.cfg.drop_retx_seqs.remove(i);
                self.n.dropped += 1;
                return Verdict::Drop;
            }
        }
        if pkt.kind == crate::packet::PktKind::Data && pkt.colour == colour::RED {
            if let Some(i) = self.cfg.drop_red_seqs.iter().position(|&s| s == pkt.seq) {
                self.cfg.drop_red_seqs.remove(i);
                self.n.dropped += 1;
                return Verdict::Drop;
            }
        }
        if pkt.colour == colour::RED && self.cfg.red_threshold.is_some_and(|t| ctx.q_bytes >= t.0) {
            self.n.dropped += 1;
            return Verdict::Drop;
        }
        if let Some(c) = self.cfg.retx_class {
            if pkt.flags & flags::RETX != 0 && pkt.class != c {
                self.n.reclassed += 1;
                return Verdict::Reclass(c);
            }
        }
        if self.cfg.mark_class == Some(pkt.class) {
            self.n.marked += 1;
            return Verdict::Mark;
        }
        Verdict::Accept
    }
    fn on_dequeue(&mut self, _pkt: &Packet, _node: u32, _port: u32, _now: Time) {
        self.n.dequeued += 1;
    }
    fn on_receive(&mut self, _pkt: &Packet, _host: u32, _now: Time) {
        self.n.received += 1;
    }
}
