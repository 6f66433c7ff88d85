//! Open-loop test traffic: constant-rate and burst sources, counted at the receiver with
//! one-way delay. They let the fabric be tested with no transport in the loop.

use super::{Event, Sim};
use crate::packet::{Packet, PktKind};
use dcnsim_engine::{Rate, Time};

#[derive(Clone, Debug)]
pub struct SourceSpec {
    pub src: u32,
    pub dst: u32,
    pub class: u8,
    /// Bytes on the wire per packet.
    pub wire: u32,
    /// Sending rate (wire bits per second). A rate equal to the NIC's is exactly line rate.
    pub rate: Rate,
    pub start: Time,
    /// No packet is emitted at or after `stop`.
    pub stop: Time,
    /// Packets emitted at once each time (1 = smooth constant rate; N = bursts of N at
    /// the average rate).
    pub burst: u32,
    /// Stop after this many packets (0 = no limit).
    pub max_pkts: u64,
    pub ect: bool,
    /// ECMP entropy of the source's packets (one path per source unless spraying).
    pub entropy: u32,
}

/// Receiver-side counts of one source.
#[derive(Clone, Copy, Debug, Default)]
pub struct SinkStats {
    pub tx_pkts: u64,
    pub rx_pkts: u64,
    pub rx_wire_bytes: u64,
    pub first_rx: Time,
    pub last_rx: Time,
    pub owd_sum: u128,
    pub owd_min: Time,
    pub owd_max: Time,
    pub ce: u64,
    pub max_hops: u8,
    /// Packets that arrived with a lower sequence number than one already received.
    pub reordered: u64,
    next_seq: u64,
}

#[derive(Default)]
pub struct Sources {
    pub specs: Vec<SourceSpec>,
    pub stats: Vec<SinkStats>,
    active: u32,
}

impl Sources {
    pub fn active(&self) -> u32 {
        self.active
    }
    pub fn on_receive(&mut self, p: &Packet, now: Time) {
        let Some(s) = self.stats.get_mut(p.flow as usize) else {
            return;
        };
        let owd = now - p.created;
        if s.rx_pkts == 0 {
            s.first_rx = now;
            s.owd_min = owd;
        }
        s.rx_pkts += 1;
        s.rx_wire_bytes += p.wire as u64;
        s.last_rx = now;
        s.owd_sum += owd as u128;
        s.owd_min = s.owd_min.min(owd);
        s.owd_max = s.owd_max.max(owd);
        s.max_hops = s.max_hops.max(p.hops);
        if p.seq < s.next_seq {
            s.reordered += 1;
        } else {
            s.next_seq = p.seq + 1;
        }
        if p.flags & crate::packet::flags::CE != 0 {
            s.ce += 1;
        }
    }
}

impl Sim {
    /// Adds an open-loop source; returns its index (= the `flow` field of its packets).
    pub fn add_source(&mut self, spec: SourceSpec) -> u32 {
        let i = self.sources.specs.len() as u32;
        self.ev.push(spec.start.max(self.now()), Event::Source(i));
        self.sources.specs.push(spec);
        self.sources.stats.push(SinkStats::default());
        self.sources.active += 1;
        i
    }

    pub(super) fn on_source(&mut self, i: u32) {
        let now = self.now();
        let s = self.sources.specs[i as usize].clone();
        let st = &mut self.sources.stats[i as usize];
        if now >= s.stop || (s.max_pkts > 0 && st.tx_pkts >= s.max_pkts) {
            self.sources.active -= 1;
            return;
        }
        let n = if s.max_pkts > 0 {
            (s.burst as u64).min(s.max_pkts - st.tx_pkts)
        } else {
            s.burst as u64
        };
        let first_seq = st.tx_pkts;
        st.tx_pkts += n;
        for k in 0..n {
            let mut p = Packet::new(PktKind::Raw, i, s.src, s.dst, 0, s.wire);
            p.class = s.class;
            p.seq = first_seq + k;
            p.entropy = s.entropy;
            if s.ect {
                p.flags |= crate::packet::flags::ECT;
            }
            let id = self.new_packet(p);
            self.host_send(s.src, id);
        }
        // Next emission: n packets' worth of wire time at the source rate.
        let gap = s.rate.tx_time(n * s.wire as u64).max(1);
        self.ev.push(now + gap, Event::Source(i));
    }
}
