//! TCP-family wire format: sans-IO segments and ACKs to packets and back.

use super::Cx;
use crate::packet::{colour, flags, Packet, PktKind};
use dcnsim_transport::{Ack, RetxCause, RxSegment, Segment, TltMark};

/// The TLT mark a packet carries (flags `IMPORTANT`, `CLOCK`).
#[inline]
pub(super) fn mark_of(p: &Packet) -> TltMark {
    match (p.flags & flags::IMPORTANT != 0, p.flags & flags::CLOCK != 0) {
        (false, _) => TltMark::None,
        (true, false) => TltMark::Important,
        (true, true) => TltMark::ImportantClock,
    }
}

/// The data packet of segment `s` (sender → receiver).
#[inline]
pub(super) fn data_packet(cx: &Cx, s: &Segment) -> Packet {
    let d = cx.desc;
    let overhead = cx.rt.data_overhead;
    let mut p = Packet::new(
        PktKind::Data,
        cx.flow,
        d.src,
        d.dst,
        s.len,
        s.len + overhead,
    );
    p.seq = s.seq;
    p.ts = s.tsval;
    p.class = d.class;
    p.entropy = d.entropy;
    if s.ect {
        p.flags |= flags::ECT;
    }
    match s.retx {
        Some(RetxCause::Rto) => p.flags |= flags::RETX | flags::RTO_RETX,
        Some(_) => p.flags |= flags::RETX,
        None => {}
    }
    // TLT §4: important data is green, everything else red.
    match s.mark {
        TltMark::None => {}
        TltMark::Important => {
            p.flags |= flags::IMPORTANT;
            p.colour = colour::GREEN;
        }
        TltMark::ImportantClock => {
            p.flags |= flags::IMPORTANT | flags::CLOCK;
            p.colour = colour::GREEN;
        }
    }
    p
}

/// The packet of ACK `a` (receiver → sender).
#[inline]
pub(super) fn ack_packet(cx: &Cx, a: &Ack) -> Packet {
    let d = cx.desc;
    let t = cx.rt;
    let mut p = Packet::new(PktKind::Ack, cx.flow, d.dst, d.src, 0, t.ack_wire);
    if t.tlt {
        // TLT §5.1: every control packet (pure ACKs included) is important.
        p.colour = colour::GREEN;
        match a.mark {
            TltMark::None => {}
            TltMark::Important => p.flags |= flags::IMPORTANT,
            TltMark::ImportantClock => p.flags |= flags::IMPORTANT | flags::CLOCK,
        }
    }
    p.seq = a.ack;
    p.ts = a.tsecr;
    p.owd = a.owd;
    p.class = d.ack_class;
    p.entropy = d.entropy;
    p.n_sack = a.n_sack;
    p.sack = a.sack;
    if a.ece {
        p.flags |= flags::ECE;
    }
    if a.dsack {
        p.flags |= flags::DSACK;
    }
    if t.tcp().sack_option_bytes && a.n_sack > 0 {
        // RFC 2018 §3: kind + length (2 bytes) and 8 per block, padded to 4 bytes.
        p.wire += (2 + 8 * a.n_sack as u32).next_multiple_of(4);
    }
    p
}

/// The ACK a packet carries.
#[inline]
pub(super) fn ack_of(p: &Packet) -> Ack {
    Ack {
        ack: p.seq,
        sack: p.sack,
        n_sack: p.n_sack,
        ece: p.flags & flags::ECE != 0,
        tsecr: p.ts,
        owd: p.owd,
        dsack: p.flags & flags::DSACK != 0,
        mark: mark_of(p),
    }
}

/// The segment a data packet carries.
#[inline]
pub(super) fn rx_segment_of(p: &Packet) -> RxSegment {
    RxSegment {
        seq: p.seq,
        len: p.payload,
        ce: p.flags & flags::CE != 0,
        tsval: p.ts,
        mark: mark_of(p),
    }
}

/// A SYN, SYN-ACK or FIN (TLT §5.1: SYN, FIN and RST are important).
pub(super) fn control_packet(cx: &Cx, kind: PktKind) -> Packet {
    let d = cx.desc;
    let (src, dst, class) = match kind {
        PktKind::SynAck => (d.dst, d.src, d.ack_class),
        _ => (d.src, d.dst, d.class),
    };
    let mut p = Packet::new(kind, cx.flow, src, dst, 0, cx.rt.ack_wire);
    if cx.rt.tlt {
        p.colour = colour::GREEN;
    }
    p.class = class;
    p.entropy = d.entropy;
    p
}
