//! RoCEv2 NIC model: one reliable-connection queue pair (QP) per flow, rate-based.
//!
//! - **Sender (requester NIC)**: the message is split into packets of `payload` bytes
//!   (PSN = packet index); a per-QP rate limiter paces them through [`Timer::Pace`] at the
//!   rate the congestion control gives (line rate without one); loss recovery
//!   ([`RoceRecovery`]) is go-back-N ([`gbn`]) or IRN / DCQCN+SACK selective repeat ([`irn`]),
//!   on a NACK or a timeout ([`Timer::Sender`]). "DCQCN does not adjust the
//!   rate when packet loss occurs" (TLT §6; mechanisms §4.9).
//! - **Receiver (responder NIC)**: go-back-N accepts packets in PSN order only, ACKs every
//!   `ack_every` in-order packets and the last, NACKs the first out-of-order packet of each
//!   gap and discards the rest, NACKing the gap again only once `nack_interval` has passed
//!   (selective repeat keeps them and NACKs each with its PSN);
//!   as DCQCN's notification point it answers CE-marked data with a CNP, at most one per
//!   flow per CNP interval ([`dcqcn::CnpPacer`]).
//! - **Rate control**: [`RoceCc`]: none (line rate), DCQCN's reaction point
//!   ([`dcqcn::Dcqcn`]), whose rate-increase timer is [`Timer::Aux`], or HPCC
//!   ([`hpcc::Hpcc`]): a window and its rate W / T from the INT the switches push onto the
//!   QP's data packets and the responder echoes in its ACKs / NACKs.
//!
//! Loss recovery and rate control are separate values so that each can be replaced (IRN
//! replaces the recovery; HPCC, a window from INT echoed in ACKs, replaces the rate).
//! The NIC pulls from its QPs: the simulator runs a QP's `Pace` timer only while the host
//! port can take its packet (not PFC-paused, no packet of its priority waiting) and serves
//! waiting QPs in turn (`sim::flow::NicPull`). Not modelled: per-QP weights in that
//! arbitration, message/WQE structure beyond one message per flow, read/atomic verbs.

pub mod dcqcn;
pub mod gbn;
pub mod hpcc;
pub mod irn;
pub mod seen;
pub mod tlt;

use super::{Cx, Endpoint, FlowDesc, Timer};
use crate::packet::{colour, flags, Packet, PktKind};
use dcnsim_engine::{Rate, Time};
use dcqcn::{CnpPacer, Dcqcn, DcqcnParams};
use gbn::{GoBackN, InOrder, Rewind, RxAction};
use hpcc::{Hpcc, HpccParams};
use irn::{Rto, SackAction, SackRx, Selective};
use seen::Seen;
use tlt::{Mark, RoceTlt, Sent, TltTx};

/// RoCEv2 headers on top of IP: UDP 8 + BTH 12 + ICRC 4 bytes.
pub const ROCE_HEADERS: u32 = 8 + 12 + 4;
/// AETH of an ACK / NACK (4 bytes); a CNP carries 16 reserved bytes after the BTH.
pub const AETH: u32 = 4;
pub const CNP_BODY: u32 = 16;

/// The rate control of a RoCE transport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoceCc {
    /// Line rate always (a lossless fabric's "no congestion control").
    None,
    Dcqcn(DcqcnParams),
    /// HPCC (mechanisms §4.11): window and rate from INT.
    Hpcc(HpccParams),
}

/// The loss recovery of a RoCE transport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoceRecovery {
    /// Go-back-N with the static `rto` (the vanilla NIC; [`gbn`]).
    Gbn,
    /// IRN (mechanisms §4.10; [`irn`]): selective repeat from NACK + SACK, at most `bdp`
    /// packets outstanding (BDP-FC), RTO_low while at most `low_pkts` are outstanding,
    /// RTO_high otherwise.
    Irn {
        bdp: u64,
        rto_low: Time,
        rto_high: Time,
        low_pkts: u64,
    },
    /// DCQCN+SACK: IRN's selective repeat without the BDP cap, with the static `rto`.
    Sack,
}

/// Runtime parameters of a RoCE transport (the resolved `[transports.NAME.roce]` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoceParams {
    /// Payload bytes per data packet (TLT / HPCC simulator: 1000).
    pub payload: u32,
    /// ACK every N in-order packets (and the message's last).
    pub ack_every: u32,
    /// Static retransmission timeout (TLT: 4 ms).
    pub rto: Time,
    /// Go-back-N receiver: the same gap is NACKed again only after this long.
    pub nack_interval: Time,
    /// The QP's line rate (the sending host's link).
    pub line_rate: Rate,
    pub cc: RoceCc,
    pub recovery: RoceRecovery,
    /// TLT on the QP ([`tlt`]; TLT §5, mechanisms §5.5).
    pub tlt: RoceTlt,
    /// Wire bytes of a data packet's headers, of an ACK / NACK and of a CNP.
    pub data_overhead: u32,
    pub ack_wire: u32,
    pub cnp_wire: u32,
}

impl Default for RoceParams {
    fn default() -> Self {
        RoceParams {
            payload: 1000,
            ack_every: 1,
            rto: 4 * dcnsim_engine::MS,
            nack_interval: 500 * dcnsim_engine::US,
            line_rate: Rate::gbps(40),
            cc: RoceCc::Dcqcn(DcqcnParams::tlt()),
            recovery: RoceRecovery::Gbn,
            tlt: RoceTlt::Off,
            data_overhead: 38 + 20 + ROCE_HEADERS,
            ack_wire: 38 + 20 + ROCE_HEADERS + AETH,
            cnp_wire: 38 + 20 + ROCE_HEADERS + CNP_BODY,
        }
    }
}

/// A QP's loss recovery: sender and receiver state.
enum Qp {
    Gbn(GoBackN, InOrder),
    Sel(Selective, SackRx),
}

impl Qp {
    #[inline]
    fn n(&self) -> u64 {
        match self {
            Qp::Gbn(t, _) => t.n,
            Qp::Sel(t, _) => t.n,
        }
    }
    #[inline]
    fn una(&self) -> u64 {
        match self {
            Qp::Gbn(t, _) => t.una,
            Qp::Sel(t, _) => t.una,
        }
    }
    #[inline]
    fn has_next(&self) -> bool {
        match self {
            Qp::Gbn(t, _) => t.has_next(),
            Qp::Sel(t, _) => t.has_next(),
        }
    }
    /// Takes the next packet to send and describes it for the TLT marking hook.
    #[inline]
    fn take(&mut self, now: Time) -> Sent {
        let (psn, retx, (round_first, round_last), iw) = match self {
            Qp::Gbn(t, _) => {
                let (p, r) = t.take(now);
                (p, r, t.round_edges(r), 0)
            }
            Qp::Sel(t, _) => {
                let (p, r) = t.take(now);
                (p, r, t.round_edges(r), t.first_window())
            }
        };
        Sent {
            psn,
            retx,
            round_first,
            round_last,
            msg_last: psn + 1 == self.n(),
            iw_last: !retx && psn + 1 == iw,
            clock: false,
        }
    }
    #[inline]
    fn deadline(&self) -> Option<Time> {
        match self {
            Qp::Gbn(t, _) => t.deadline(),
            Qp::Sel(t, _) => t.deadline(),
        }
    }
    #[inline]
    fn done(&self) -> bool {
        match self {
            Qp::Gbn(t, _) => t.done(),
            Qp::Sel(t, _) => t.done(),
        }
    }
    /// The next new PSN (snd_nxt).
    #[inline]
    fn nxt(&self) -> u64 {
        match self {
            Qp::Gbn(t, _) => t.nxt,
            Qp::Sel(t, _) => t.nxt,
        }
    }
    #[inline]
    fn epsn(&self) -> u64 {
        match self {
            Qp::Gbn(_, r) => r.epsn,
            Qp::Sel(_, r) => r.epsn,
        }
    }
}

/// One QP: both NICs' state.
pub struct RoceFlow {
    p: RoceParams,
    size: u64,
    qp: Qp,
    cc: Option<Dcqcn>,
    hp: Option<Box<Hpcc>>,
    /// HPCC's window over go-back-N: at most this many packets outstanding (selective
    /// repeat takes it as its BDP cap instead, which leaves retransmissions uncapped).
    win: u64,
    /// When the pacer lets the next packet leave.
    next_tx: Time,
    np: CnpPacer,
    /// TLT's marking (sender) state.
    tlt: TltTx,
    /// Responder: the packets that reached the host at least once, in any order (for the
    /// flow table's `rx_all_s`; `seen.rs`).
    seen: Seen,
}

impl RoceFlow {
    pub fn new(p: &RoceParams, d: &FlowDesc) -> Self {
        let payload = p.payload.max(1) as u64;
        let n = d.size.div_ceil(payload).max(1);
        let qp = match p.recovery {
            RoceRecovery::Gbn => Qp::Gbn(GoBackN::new(n, p.rto), InOrder::default()),
            RoceRecovery::Sack => Qp::Sel(
                Selective::new(n, Rto::fixed(p.rto), None),
                SackRx::default(),
            ),
            RoceRecovery::Irn {
                bdp,
                rto_low,
                rto_high,
                low_pkts,
            } => Qp::Sel(
                Selective::new(
                    n,
                    Rto {
                        low: rto_low,
                        high: rto_high,
                        low_pkts,
                    },
                    Some(bdp),
                ),
                SackRx::default(),
            ),
        };
        // TLT's loss detection on selective repeat needs each transmission's send stamp
        // (`Selective::tlt_judge`).
        let qp = match qp {
            Qp::Sel(t, rx) if p.tlt != RoceTlt::Off => Qp::Sel(t.with_stamps(), rx),
            qp => qp,
        };
        RoceFlow {
            p: *p,
            size: d.size,
            qp,
            cc: None,
            hp: None,
            win: u64::MAX,
            next_tx: 0,
            np: CnpPacer::default(),
            tlt: TltTx::new(p.tlt),
            seen: Seen::default(),
        }
    }
    /// The pacing rate (bits/s).
    #[inline]
    pub fn rate(&self) -> f64 {
        if let Some(h) = &self.hp {
            return h.rate();
        }
        match &self.cc {
            Some(c) => c.rate(),
            None => self.p.line_rate.0 as f64,
        }
    }
    /// The HPCC state (tests and traces).
    pub fn hpcc(&self) -> Option<&Hpcc> {
        self.hp.as_deref()
    }
    /// A packet may be sent: one is waiting and HPCC's window (if any) has room.
    #[inline]
    /// A packet may go: the next one inside HPCC's window (go-back-N; selective repeat caps
    /// through its BDP field), or a window-based TLT clock packet, which goes regardless of
    /// the window (TLT §5.1 important ACK-clocking).
    fn can_send(&self) -> bool {
        (self.qp.has_next()
            && match &self.qp {
                Qp::Gbn(t, _) => t.nxt - t.una < self.win,
                Qp::Sel(..) => true,
            })
            || self.clock_due()
    }
    /// Window-based TLT keeps one important packet in flight (TLT §5.1). When nothing may be
    /// sent, one Important Clock packet goes regardless of the window (important
    /// ACK-clocking) if an echo made the next packet important, or if no important packet is
    /// in flight at all. [not in the paper] The second case: HPCC's window can close before
    /// the last packet of the first window, the one TLT marks, leaves; if what did leave is
    /// lost, no ACK would ever reopen the window and the flow would wait for its RTO. Decided
    /// when the QP would send (as the TLT RoCE simulator decides its forced transmission in
    /// `GetNxtPacket`), so an ACK between the echo and the send counts.
    #[inline]
    fn clock_due(&self) -> bool {
        self.tlt.mode == RoceTlt::Window
            && (self.tlt.send_important || self.tlt.pending.is_none())
            && matches!(&self.qp, Qp::Sel(t, _) if !t.has_next() && !t.done() && t.can_clock())
    }
    /// HPCC's window W in packets caps what is outstanding (mechanisms §4.11, `HAS_WIN 1`).
    fn apply_window(&mut self) {
        if let Some(h) = &self.hp {
            let w = h.window_pkts(self.p.payload);
            match &mut self.qp {
                Qp::Sel(t, _) => t.bdp = Some(w),
                Qp::Gbn(..) => self.win = w,
            }
        }
    }
    /// HPCC, Algorithm 1 NewAck: an ACK or NACK with the echoed INT of the data packet
    /// that triggered it.
    fn hpcc_on_ack(&mut self, cx: &mut Cx, p: &Packet) {
        let nxt = self.qp.nxt();
        if let Some(h) = &mut self.hp {
            if h.on_ack(p.seq, nxt, cx.rx_int()) {
                self.apply_window();
                cx.rearm(Timer::Pace);
            }
        }
    }
    pub fn dcqcn(&self) -> Option<&Dcqcn> {
        self.cc.as_ref()
    }
    /// Payload bytes acknowledged so far.
    pub fn acked_bytes(&self) -> u64 {
        (self.qp.una() * self.p.payload as u64).min(self.size)
    }
    /// Selective repeat only: the most packets ever outstanding (BDP-FC caps it).
    pub fn max_outstanding(&self) -> Option<u64> {
        match &self.qp {
            Qp::Sel(t, _) => Some(t.max_outstanding),
            Qp::Gbn(..) => None,
        }
    }
    /// Payload of packet `psn`.
    #[inline]
    fn len_of(&self, psn: u64) -> u32 {
        let pl = self.p.payload.max(1) as u64;
        (self.size.saturating_sub(psn * pl)).min(pl) as u32
    }
    fn control(&self, cx: &Cx, kind: PktKind, wire: u32, psn: u64) -> Packet {
        let d = cx.desc;
        let mut a = Packet::new(kind, cx.flow, d.dst, d.src, 0, wire);
        a.seq = psn;
        a.class = d.ack_class;
        a.entropy = d.entropy;
        if self.tlt.on() {
            // TLT §5: "ACK, NACK, and CNP in RoCE" are important (green).
            a.colour = colour::GREEN;
        }
        a
    }
    /// TLT with selective repeat at the requester: an Important Echo of data packet `echoed`
    /// arrived (after the ACK / NACK itself was processed). TLT §5.1: if it echoes the
    /// important packet in flight, judge what was sent before it (loss detection). Window-
    /// based only: make the next packet Important Data, and if nothing may be sent, send one
    /// Important Clock packet regardless of the window (important ACK-clocking).
    fn on_echo(&mut self, cx: &mut Cx, echoed: u64) {
        let Qp::Sel(t, _) = &mut self.qp else {
            return;
        };
        if let Some(i) = self.tlt.pending.filter(|i| i.psn == echoed) {
            self.tlt.pending = None;
            let lost = t.tlt_judge(i);
            if lost > 0 {
                cx.rec.tlt_lost_segs += lost;
                cx.rearm(Timer::Pace);
            }
        }
        if self.tlt.mode != RoceTlt::Window {
            return;
        }
        // The next packet is Important Data, or Important Clock if none may go when the QP
        // comes to send (`clock_due`).
        self.tlt.send_important = true;
        cx.rearm(Timer::Pace);
    }

    /// The responder's host got data packet `p` of an `n`-packet message, whatever its NIC
    /// makes of it: the TLT RoCE reference's application-level timing (`seen.rs`). The flow
    /// starts at the send time of the first copy of PSN 0 to arrive; it is whole at an
    /// arrival of its last PSN once every PSN has arrived (go-back-N: the reference's
    /// `FLOW_END` rule), or at any arrival then (selective repeat: its IRN rule).
    fn note_arrival(&mut self, cx: &mut Cx, p: &Packet, n: u64) {
        if cx.rec.rx_all.is_some() {
            return;
        }
        if p.seq == 0 && cx.rec.rx_first_sent.is_none() {
            cx.rec.rx_first_sent = Some(p.created);
        }
        self.seen.insert(p.seq);
        let at_end = p.seq + 1 == n || matches!(self.qp, Qp::Sel(..));
        if at_end && self.seen.all_below(n) {
            cx.rec.rx_all = Some(cx.now);
            self.seen = Seen::default();
        }
    }
}

impl Endpoint for RoceFlow {
    fn on_start(&mut self, cx: &mut Cx) {
        cx.rec.established = Some(cx.now);
        if let RoceCc::Dcqcn(dp) = self.p.cc {
            // DCQCN §3.3: a QP starts at line rate.
            self.cc = Some(Dcqcn::new(dp, self.p.line_rate.0 as f64, cx.now));
        }
        if let RoceCc::Hpcc(hp) = self.p.cc {
            // HPCC §3.2: W_init = B_NIC · T, i.e. the QP starts at line rate; T is the
            // configured network-wide base RTT or the QP's own.
            let t = hp.base_rtt.unwrap_or(cx.desc.base_rtt);
            self.hp = Some(Box::new(Hpcc::new(hp, self.p.line_rate.0 as f64, t)));
            self.apply_window();
        }
        self.next_tx = cx.now;
        cx.rearm(Timer::Pace);
    }

    fn on_packet(&mut self, cx: &mut Cx, p: &Packet) {
        match p.kind {
            // ---- responder NIC ----
            PktKind::Data => {
                if p.has(flags::CE) {
                    cx.rec.ecn_marks += 1;
                    // DCQCN §3.2 (NP): a CNP for a CE-marked packet, at most one per flow
                    // per CNP interval.
                    if let RoceCc::Dcqcn(dp) = self.p.cc {
                        if self.np.on_ce(cx.now, dp.cnp_interval) {
                            let c = self.control(cx, PktKind::Cnp, self.p.cnp_wire, 0);
                            cx.send(c);
                        }
                    }
                }
                let n = self.qp.n();
                self.note_arrival(cx, p, n);
                // TLT §5.1: Important Data is answered at once, with an Important Echo (Clock
                // Echo for Important Clock Data). Window-based TLT, and rate-based TLT with
                // selective repeat (its loss detection, `on_echo`).
                let echo = p.has(flags::IMPORTANT)
                    && (self.tlt.mode == RoceTlt::Window
                        || (self.tlt.on() && matches!(self.qp, Qp::Sel(..))));
                let every = if echo { 1 } else { self.p.ack_every.max(1) };
                let reply = match &mut self.qp {
                    Qp::Gbn(_, rx) => {
                        match rx.on_data(cx.now, p.seq, p.seq + 1 == n, every, self.p.nack_interval)
                        {
                            RxAction::Accept | RxAction::Discard => None,
                            RxAction::AcceptAck | RxAction::DupAck => Some(PktKind::Ack),
                            RxAction::Nack => Some(PktKind::Nack),
                        }
                    }
                    Qp::Sel(_, rx) => match rx.on_data(p.seq, n, every) {
                        SackAction::Accept => None,
                        SackAction::Ack => Some(PktKind::Ack),
                        SackAction::Nack => Some(PktKind::Nack),
                    },
                };
                if let Some(kind) = reply {
                    let mut a = self.control(cx, kind, self.p.ack_wire, self.qp.epsn());
                    if kind == PktKind::Nack && matches!(self.qp, Qp::Sel(..)) {
                        // IRN's NACK: the cumulative PSN (`seq`) and the SACKed PSN, the
                        // out-of-order packet that triggered it (IRN §3.1).
                        a.sack[0] = (p.seq, p.seq + 1);
                        a.n_sack = 1;
                    }
                    if echo {
                        a.flags |= p.flags & (flags::IMPORTANT | flags::CLOCK);
                        // The echoed PSN rides in the first SACK block (an ACK counts none:
                        // `n_sack` stays 0; a NACK's is this PSN anyway).
                        a.sack[0] = (p.seq, p.seq + 1);
                    }
                    cx.send(a);
                    if p.int != 0 {
                        // mechanisms §2.7: the receiver copies the INT stack into the ACK.
                        cx.echo_int();
                    }
                }
                if self.qp.epsn() >= n {
                    cx.complete();
                }
            }
            // ---- requester NIC ----
            PktKind::Ack => {
                self.hpcc_on_ack(cx, p);
                let progress = match &mut self.qp {
                    Qp::Gbn(t, _) => t.on_ack(cx.now, p.seq),
                    Qp::Sel(t, _) => t.on_ack(cx.now, p.seq),
                };
                if progress {
                    cx.rearm(Timer::Sender);
                    // BDP-FC: an ACK may open the window.
                    cx.rearm(Timer::Pace);
                    if self.qp.done() {
                        cx.close();
                        return;
                    }
                }
                if p.has(flags::IMPORTANT) {
                    self.on_echo(cx, p.sack[0].0);
                }
            }
            PktKind::Nack => {
                self.hpcc_on_ack(cx, p);
                let recover = match &mut self.qp {
                    // Go-back-N: resend from the NACKed PSN (mechanisms §4.9).
                    Qp::Gbn(t, _) => matches!(t.on_nack(cx.now, p.seq), Rewind::To(_)),
                    // IRN: selective retransmission of the packets the SACK shows lost
                    // (mechanisms §4.10).
                    Qp::Sel(t, _) => {
                        let sacked = if p.n_sack > 0 { p.sack[0].0 } else { p.seq };
                        t.on_nack(cx.now, p.seq, sacked)
                    }
                };
                if recover {
                    cx.rec.fast_retx += 1;
                }
                cx.rearm(Timer::Pace);
                cx.rearm(Timer::Sender);
                if self.qp.done() {
                    cx.close();
                    return;
                }
                if p.has(flags::IMPORTANT) {
                    self.on_echo(cx, p.sack[0].0);
                }
            }
            PktKind::Cnp => {
                cx.rec.cnps += 1;
                if let Some(c) = &mut self.cc {
                    c.on_cnp(cx.now);
                    cx.rearm(Timer::Aux);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, t: Timer) {
        // A slot fires at the earliest deadline it was told about; one that moved later since
        // is re-armed at its current deadline.
        cx.rearm(t);
        match t {
            Timer::Pace => {
                if !self.can_send() || cx.now < self.next_tx {
                    return;
                }
                let had_timer = self.qp.deadline().is_some();
                // (Otherwise a packet may go inside the window: if an echo made it important,
                // as Important Data.)
                let clock = self.clock_due();
                let s = match &mut self.qp {
                    Qp::Sel(t, _) if clock => {
                        // `clock_due` checked that there is a packet to clock with.
                        let (psn, retx) = t.take_clock(cx.now).unwrap_or((t.una, true));
                        Sent {
                            psn,
                            retx,
                            clock: true,
                            ..Sent::default()
                        }
                    }
                    _ => self.qp.take(cx.now),
                };
                let (psn, retx) = (s.psn, s.retx);
                let mark = self.tlt.mark(&s);
                let d = cx.desc;
                let len = self.len_of(psn);
                let wire = len + self.p.data_overhead;
                let mut pk = Packet::new(PktKind::Data, cx.flow, d.src, d.dst, len, wire);
                pk.seq = psn;
                pk.class = d.class;
                pk.entropy = d.entropy;
                // RoCEv2 with DCQCN: data is ECN-capable (DCQCN §3.1).
                pk.flags = flags::ECT;
                if let Some(h) = &self.hp {
                    // HPCC §3.1: the QP's data packets collect INT at every switch egress.
                    pk.collect_int(h.params().int_hops);
                }
                cx.rec.data_pkts += 1;
                if retx {
                    pk.flags |= flags::RETX;
                    cx.rec.retx_pkts += 1;
                }
                if mark != Mark::None {
                    // TLT §4: important data is green (the rest of a TLT flow's data red).
                    pk.flags |= flags::IMPORTANT;
                    pk.colour = colour::GREEN;
                    cx.rec.important_pkts += 1;
                    cx.rec.important_bytes += len as u64;
                    if mark == Mark::Clock {
                        pk.flags |= flags::CLOCK;
                        cx.rec.clock_bytes += len as u64;
                    }
                    if let Qp::Sel(t, _) = &self.qp {
                        // The important packet in flight (§5.1), judged at its echo. A
                        // rate-based sender may send several per round trip: the latest is
                        // tracked (a round's last packet is always the one judged; echoes of
                        // earlier ones are ignored), so the echo of `i` never judges packets
                        // sent after `i`.
                        self.tlt.pending = Some(t.tlt_snapshot(psn));
                    }
                }
                cx.send(pk);
                if let Some(c) = &mut self.cc {
                    // The byte counter (DCQCN §3.3) counts what the QP sends.
                    c.on_sent(wire as u64);
                }
                // The per-QP rate limiter: the next packet leaves one serialization time at
                // the current rate later.
                let r = Rate((self.rate() as u64).max(1));
                self.next_tx = cx.now.saturating_add(r.tx_time(wire as u64));
                cx.rearm(Timer::Pace);
                if !had_timer {
                    cx.rearm(Timer::Sender);
                }
            }
            Timer::Sender => {
                // Go-back-N: the static RTO goes back to the oldest unacknowledged PSN; IRN:
                // every unacknowledged, un-SACKed packet is resent.
                let fired = match &mut self.qp {
                    Qp::Gbn(t, _) => matches!(t.on_timer(cx.now), Rewind::To(_)),
                    Qp::Sel(t, _) => t.on_timer(cx.now),
                };
                if fired {
                    cx.rec.rto_count += 1;
                    // [not in the paper] as for TCP (sender/tlt.rs): after a timeout the
                    // important packet in flight is presumed lost; (window-based) the next
                    // is important.
                    self.tlt.pending = None;
                    if self.tlt.mode == RoceTlt::Window {
                        self.tlt.send_important = true;
                    }
                    cx.rearm(Timer::Pace);
                }
            }
            Timer::Aux => {
                if let Some(c) = &mut self.cc {
                    c.on_timer(cx.now);
                }
            }
            Timer::Receiver => {}
        }
    }

    fn deadline(&self, t: Timer) -> Option<Time> {
        match t {
            Timer::Pace => self.can_send().then_some(self.next_tx),
            Timer::Sender => self.qp.deadline(),
            Timer::Aux => self.cc.as_ref().and_then(|c| c.deadline()),
            Timer::Receiver => None,
        }
    }
}
