//! The shim's side of the `Sim`: flows joining and leaving pipes, encapsulation and
//! enqueue (`shim_take`), release into the NIC (`shim_pump`), decapsulation and feedback
//! reports at the receiver (`shim_receive`), and the control tick (`shim_tick`).

use super::{FlowShim, Law, TICK};
use crate::net::buffer::DropReason;
use crate::packet::{flags, tunnel, Packet, PktId, PktKind, NIL};
use crate::scheme::c3::C3Feedback;
use crate::sim::{Ecmp, Event, Sim};
use crate::transport::NEVER;
use dcnsim_engine::{Time, SEC};

impl Sim {
    /// A flow starts: put it in its pipe (before its first packet).
    #[inline(never)]
    pub(in crate::sim) fn shim_flow_start(&mut self, f: u32) {
        let now = self.now();
        let d = &self.flows.desc[f as usize];
        let tcp = matches!(
            self.flows.transports[d.transport as usize].kind,
            crate::transport::TransportKind::Tcp
        );
        let (src, dst, tc) = (d.src, d.dst, d.traffic_class as usize);
        let sh = self.shim.as_mut().unwrap();
        if sh.flows.len() <= f as usize {
            sh.flows.resize(
                f as usize + 1,
                FlowShim {
                    pipe: NIL,
                    sent: 0,
                    queued: 0,
                    active: false,
                    demoted: false,
                },
            );
        }
        let Some(cl) = sh.classes.get(tc).copied() else {
            return;
        };
        if !tcp || !cl.enters {
            return;
        }
        let p = sh.pipe_for(src, dst, cl.objective);
        sh.start_pipe(p, now);
        sh.flows[f as usize] = FlowShim {
            pipe: p,
            sent: 0,
            queued: 0,
            active: true,
            demoted: false,
        };
        sh.pipes[p as usize].flows.push(f);
        sh.pipes[p as usize].stats.flows += 1;
        // DS guarantees are recomputed on arrival and departure (spec §5.3.4).
        sh.derive(src, now, &self.flows.desc);
        let ticking = std::mem::replace(&mut sh.ticking, true);
        if !ticking {
            let next = (now / sh.interval + 1) * sh.interval;
            self.ev.push(next, Event::Shim(TICK));
            if let Some(k) = sh.coord.as_mut() {
                // The coordinator's clock restarts with the control clock, at its next tick.
                k.next = k.next.max(next);
            }
        }
        self.shim_kick(p, now);
    }

    /// A flow's sender is done: it leaves its pipe.
    #[inline(never)]
    pub(in crate::sim) fn shim_flow_end(&mut self, f: u32) {
        let now = self.now();
        let sh = self.shim.as_mut().unwrap();
        let Some(fs) = sh.flows.get_mut(f as usize) else {
            return;
        };
        if !fs.active {
            return;
        }
        fs.active = false;
        let p = fs.pipe as usize;
        sh.pipes[p].flows.retain(|&x| x != f);
        let src = sh.pipes[p].src;
        sh.derive(src, now, &self.flows.desc);
    }

    /// `host_send` of a shim flow's data packet: encapsulate and queue in its pipe.
    /// Returns false if the packet is not the shim's (it goes to the NIC as usual).
    #[inline(never)]
    pub(in crate::sim) fn shim_take(&mut self, host: u32, id: PktId) -> bool {
        let sh = self.shim.as_mut().unwrap();
        let (kind, flow) = {
            let p = self.arena.get(id);
            (p.kind, p.flow)
        };
        if kind != PktKind::Data {
            return false;
        }
        let Some(fs) = sh.flows.get_mut(flow as usize) else {
            return false;
        };
        if fs.pipe == NIL {
            return false;
        }
        let pi = fs.pipe as usize;
        let pk = self.arena.get_mut(id);
        fs.sent = fs.sent.max(pk.seq + pk.payload as u64);
        let pipe = &mut sh.pipes[pi];
        let backlog = pipe.q[0].pkts + pipe.q[1].pkts;
        if backlog >= sh.limit {
            pipe.stats.drops += 1;
            let class = pk.class;
            let port = self.host_port(host);
            let qi = self.profiles[self.ports[port as usize].profile as usize].queue_of(class);
            self.drop_packet(port, qi, id, DropReason::Scheme);
            return true;
        }
        // Encapsulation (C3 §3.2): outer header bytes, inner ECN saved, outer ECT.
        let mut t = tunnel::ENCAP;
        if pk.flags & flags::ECT != 0 {
            t |= tunnel::INNER_ECT;
            // Inner marking only at the shim queue (spec §5.3.2), DCTCP-style at enqueue.
            if backlog >= sh.mark_k {
                t |= tunnel::INNER_CE;
                pipe.stats.inner_marks += 1;
            }
        }
        pk.tunnel = t;
        pk.flags = (pk.flags & !flags::CE) | flags::ECT;
        pk.wire += sh.encap;
        if matches!(sh.law, Law::C3(_)) && self.ecmp == Ecmp::PerFlow {
            // The fabric hashes the outer header: one path per pipe (C3 §3.2).
            pk.entropy = pipe.entropy;
        }
        fs.queued += pk.payload as u64;
        let sub = (pipe.high != NIL && pipe.high != flow) as usize;
        pipe.q[sub].push_back(&mut self.arena, id);
        if pipe.wake == NEVER {
            self.shim_pump(pi as u32);
        }
        true
    }

    /// Releases what the pipe's token bucket allows into the NIC, then schedules a wake-up
    /// for the next packet.
    fn shim_pump(&mut self, p: u32) {
        let now = self.now();
        loop {
            let sh = self.shim.as_mut().unwrap();
            let Some(sub) = sh.pick(p as usize, &self.arena) else {
                return;
            };
            let t = sh.ready_at(p as usize, now);
            if t > now {
                let pp = &mut sh.pipes[p as usize];
                if t < pp.wake {
                    pp.wake = t;
                    self.ev.push(t, Event::Shim(p));
                }
                return;
            }
            let pp = &mut sh.pipes[p as usize];
            let id = pp.q[sub].pop_front(&mut self.arena).expect("picked");
            let (wire, flow, payload) = {
                let pk = self.arena.get(id);
                (pk.wire, pk.flow, pk.payload as u64)
            };
            let both = !pp.q[sub ^ 1].is_empty();
            if both {
                pp.deficit[sub] -= wire as f64;
            }
            if pp.q[sub].is_empty() {
                pp.deficit[sub] = 0.0;
            }
            let src = pp.src;
            let fs = &mut sh.flows[flow as usize];
            fs.queued = fs.queued.saturating_sub(payload);
            sh.charge(p as usize, now, wire);
            let port = self.host_port(src);
            self.port_enqueue(port, id, false);
        }
    }

    /// Wakes a pipe whose rate may have risen (its next release may be earlier).
    fn shim_kick(&mut self, p: u32, now: Time) {
        let sh = self.shim.as_mut().unwrap();
        let pp = &sh.pipes[p as usize];
        if pp.q[0].is_empty() && pp.q[1].is_empty() {
            return;
        }
        let t = sh.ready_at(p as usize, now);
        if t <= now {
            sh.pipes[p as usize].wake = NEVER;
            self.shim_pump(p);
        } else if t < sh.pipes[p as usize].wake {
            sh.pipes[p as usize].wake = t;
            self.ev.push(t, Event::Shim(p));
        }
    }

    /// `Event::Shim`: a pipe's wake-up or the control tick.
    #[inline(never)]
    pub(in crate::sim) fn on_shim(&mut self, i: u32) {
        let now = self.now();
        if i == TICK {
            return self.shim_tick();
        }
        let sh = self.shim.as_mut().unwrap();
        if sh.pipes[i as usize].wake != now {
            return; // superseded by an earlier wake-up
        }
        sh.pipes[i as usize].wake = NEVER;
        self.shim_pump(i);
    }

    /// A receiver shim's report of pipe `p`'s interval, from the pipe's destination host to
    /// its source (`feedback = "packet"`): a small `Raw` packet with no flow (`NIL`),
    /// carrying the pipe in `seq` and (packets, marked) in its first SACK slot.
    fn shim_send_report(&mut self, p: u32, rx: u64, marked: u64) {
        let sh = self.shim.as_ref().unwrap();
        let pp = &sh.pipes[p as usize];
        let wire = match &sh.law {
            Law::C3(c) => c.report_bytes.0 as u32,
            Law::Es(_) => 64,
        };
        let mut pk = Packet::new(PktKind::Raw, NIL, pp.dst, pp.src, 0, wire);
        pk.seq = p as u64;
        pk.sack[0] = (rx, marked);
        // The reverse direction's outer header hashes to its own path.
        pk.entropy = pp.entropy.rotate_left(16);
        let (from, id) = (pp.dst, self.arena.alloc(pk));
        self.host_send(from, id);
    }

    /// `host_receive`: decapsulate a shim packet and count its outer mark for its pipe; a
    /// feedback report runs its pipe's rate law. Returns true if the packet was a report
    /// (the shim consumed it).
    #[inline(never)]
    pub(in crate::sim) fn shim_receive(&mut self, id: PktId) -> bool {
        let now = self.now();
        let sh = self.shim.as_mut().unwrap();
        let p = self.arena.get_mut(id);
        if p.kind == PktKind::Raw && p.flow == NIL {
            let (pipe, (rx, marked)) = (p.seq as usize, p.sack[0]);
            sh.pipes[pipe].stats.reports += 1;
            sh.feedback(pipe, rx, marked, now);
            self.shim_kick(pipe as u32, now);
            return true;
        }
        if p.tunnel & tunnel::ENCAP == 0 {
            return false;
        }
        let marked = p.flags & flags::CE != 0;
        if let Some(fs) = sh.flows.get(p.flow as usize) {
            if fs.pipe != NIL {
                let pp = &mut sh.pipes[fs.pipe as usize];
                pp.rx_pkts += 1;
                pp.rx_marked += marked as u64;
                pp.stats.rx_pkts += 1;
                pp.stats.rx_marked += marked as u64;
            }
        }
        let mut f = p.flags & !(flags::ECT | flags::CE);
        if p.tunnel & tunnel::INNER_ECT != 0 {
            f |= flags::ECT;
        }
        if p.tunnel & tunnel::INNER_CE != 0 {
            f |= flags::CE;
        }
        p.flags = f;
        p.wire -= sh.encap;
        p.tunnel = 0;
        false
    }

    /// The control interval: feedback, guarantees and weights, the rate law.
    fn shim_tick(&mut self) {
        let now = self.now();
        let active = self.flows.active();
        if self
            .shim
            .as_ref()
            .unwrap()
            .coord
            .as_ref()
            .is_some_and(|k| now >= k.next)
        {
            self.shim_coordinate(now);
        }
        let sh = self.shim.as_mut().unwrap();
        let secs = sh.interval as f64 / SEC as f64;
        for h in 0..sh.host_pipes.len() as u32 {
            if !sh.host_pipes[h as usize].is_empty() {
                sh.derive(h, now, &self.flows.desc);
            }
        }
        let by_packet = matches!(&sh.law, Law::C3(c) if c.feedback == C3Feedback::Packet);
        let mut reports = Vec::new();
        for p in 0..sh.pipes.len() {
            sh.settle(p, now);
            let pp = &mut sh.pipes[p];
            let sent_bps = pp.tx_bytes as f64 * 8.0 / secs;
            pp.last_sent_bps = sent_bps;
            let busy = !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty());
            if busy {
                let st = &mut pp.stats;
                st.busy_ticks += 1;
                st.sum_r_g += pp.r_g;
                st.sum_sent_bps += sent_bps;
                st.max_r_g = st.max_r_g.max(pp.r_g);
            }
            let (rx, marked) = (pp.rx_pkts, pp.rx_marked);
            pp.rx_pkts = 0;
            pp.rx_marked = 0;
            pp.tx_bytes = 0;
            if !by_packet {
                // Out of band: the sender has the interval's fraction at once.
                sh.feedback(p, rx, marked, now);
            } else if busy || rx > 0 {
                // The receiver shim reports the interval (spec §5.3.2); the law runs when
                // the report reaches the sender (`shim_receive`).
                reports.push((p as u32, rx, marked));
            }
        }
        for (p, rx, marked) in reports {
            self.shim_send_report(p, rx, marked);
        }
        let sh = self.shim.as_mut().unwrap();
        let n = sh.pipes.len() as u32;
        let backlog = sh
            .pipes
            .iter()
            .any(|p| !(p.q[0].is_empty() && p.q[1].is_empty()));
        if active > 0 || backlog {
            self.ev.push(now + sh.interval, Event::Shim(TICK));
        } else {
            sh.ticking = false;
        }
        for p in 0..n {
            self.shim_kick(p, now);
        }
    }
}
