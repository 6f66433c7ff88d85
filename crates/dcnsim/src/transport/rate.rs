//! Test-only: a NIC-paced constant-rate sender with per-packet ACKs.
//!
//! The smallest rate-based endpoint: the sender emits MSS-sized data packets, one per
//! [`Timer::Pace`] slot, `rate.tx_time(wire)` apart (the per-QP rate limiter a RoCE NIC
//! has); the receiver ACKs every packet with the next byte it expects; the flow is complete
//! when the receiver has every byte and closed when the sender has every ACK. No loss
//! recovery and no congestion control: it exists to show (and test) that the endpoint
//! interface carries rate-based sending, not as a transport to study. It is selected only by
//! code ([`super::TransportKind::ConstRate`]), not by the scenario format.

use super::{Cx, Endpoint, FlowDesc, Timer, TransportRt};
use crate::packet::{Packet, PktKind};
use dcnsim_engine::{Rate, Time};

pub struct ConstRateFlow {
    rate: Rate,
    size: u64,
    mss: u64,
    /// Sender: next byte to send, bytes acknowledged, when the next packet may leave.
    snd_nxt: u64,
    snd_una: u64,
    next_tx: Time,
    /// Receiver: next byte expected.
    rcv_nxt: u64,
}

impl ConstRateFlow {
    pub fn new(rate: Rate, rt: &TransportRt, d: &FlowDesc) -> Self {
        ConstRateFlow {
            rate,
            size: d.size,
            mss: rt.payload as u64,
            snd_nxt: 0,
            snd_una: 0,
            next_tx: 0,
            rcv_nxt: 0,
        }
    }
}

impl Endpoint for ConstRateFlow {
    fn on_start(&mut self, cx: &mut Cx) {
        cx.rec.established = Some(cx.now);
        self.next_tx = cx.now;
        cx.rearm(Timer::Pace);
    }

    fn on_packet(&mut self, cx: &mut Cx, p: &Packet) {
        let d = cx.desc;
        match p.kind {
            PktKind::Data => {
                if p.seq == self.rcv_nxt {
                    self.rcv_nxt += p.payload as u64;
                }
                let mut a = Packet::new(PktKind::Ack, cx.flow, d.dst, d.src, 0, cx.rt.ack_wire);
                a.seq = self.rcv_nxt;
                a.class = d.ack_class;
                a.entropy = d.entropy;
                cx.send(a);
                if self.rcv_nxt >= self.size {
                    cx.complete();
                }
            }
            PktKind::Ack => {
                self.snd_una = self.snd_una.max(p.seq);
                if self.snd_una >= self.size {
                    cx.close();
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, t: Timer) {
        if t != Timer::Pace || self.snd_nxt >= self.size || cx.now < self.next_tx {
            return;
        }
        let d = cx.desc;
        let len = self.mss.min(self.size - self.snd_nxt) as u32;
        let wire = len + cx.rt.data_overhead;
        let mut p = Packet::new(PktKind::Data, cx.flow, d.src, d.dst, len, wire);
        p.seq = self.snd_nxt;
        p.class = d.class;
        p.entropy = d.entropy;
        cx.send(p);
        cx.rec.data_pkts += 1;
        self.snd_nxt += len as u64;
        self.next_tx = cx.now + self.rate.tx_time(wire as u64);
        cx.rearm(Timer::Pace);
    }

    fn deadline(&self, t: Timer) -> Option<Time> {
        (t == Timer::Pace && self.snd_nxt < self.size).then_some(self.next_tx)
    }
}
