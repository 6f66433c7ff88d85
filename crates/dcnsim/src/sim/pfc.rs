//! Priority-based flow control (IEEE 802.1Qbb; mechanisms §2.6) in the event loop.
//!
//! A switch counts, per ingress port and lossless queue, the bytes it holds that arrived on
//! that port (`Ingress::bytes`: + at enqueue, − when the packet starts leaving). Crossing
//! XOFF sends a PAUSE for that priority out of the ingress port, i.e. to the upstream
//! egress (a switch port or a host NIC); falling to XON sends a RESUME (a PAUSE of zero
//! quanta). XOFF is static or dynamic: α_ingress × (B − headroom − used), the free shared
//! buffer (the Broadcom-style rule of the TLT reference code). While paused, the switch
//! refreshes the PAUSE every half pause time, so a long congestion never lets it expire.
//!
//! A PAUSE frame cannot preempt: it waits for the frame being serialized on the reverse
//! link, goes ahead of queued data, occupies the link for its serialization (delaying the
//! data behind it), and reaches the upstream port one propagation delay later. The paused
//! queue stops at the next packet boundary (the scheduler skips it; a host's driver FIFO
//! blocks on a paused head).
//!
//! Headroom: what can still arrive after the PAUSE is decided is the bytes on the wire
//! (rate × delay), the frame the switch is sending when it decides (≤ 1 MTU), the PAUSE's
//! own serialization and delay (rate × delay), and the frame the upstream has started
//! (≤ 1 MTU): 2 × rate × delay + 2 MTU + the PAUSE frame. Each (ingress port, lossless
//! queue) reserves that much of the switch buffer; lossy queues cannot use it.
//!
//! Deadlock: a queue paused without a break for `watchdog` while holding packets stops the
//! run with a note (`end = "pfc_deadlock"`), so a cyclic buffer dependency never hangs it.

use super::{Event, Sim};
use crate::net::config::PfcConfig;
use crate::net::config::MAX_QUEUES;
use crate::packet::{PktId, NIL};
use crate::topo::NodeKind;
use dcnsim_engine::Time;

/// Per-port ingress state (the port's node is a switch; the port faces the upstream).
#[derive(Clone, Debug, Default)]
pub struct Ingress {
    /// Buffered bytes that arrived on this port, per queue.
    pub bytes: [u64; MAX_QUEUES],
    /// Bit q: a PAUSE for q is in force (sent, no RESUME since).
    pub xoff: u8,
    /// PAUSE (including refreshes) and RESUME frames sent out of this port, per queue.
    pub pause_sent: [u64; MAX_QUEUES],
    pub resume_sent: [u64; MAX_QUEUES],
    /// Headroom reserved per lossless queue on this ingress, bytes.
    pub headroom: u64,
    /// When the last PAUSE for each queue went out (refreshes are due half a pause later).
    pub last_pause: [Time; MAX_QUEUES],
    /// Bit q: a REFRESH check is scheduled.
    pub refresh_pending: u8,
}

/// Per-port egress state (the port is paused by its peer).
#[derive(Clone, Debug, Default)]
pub struct Egress {
    /// When the pause of each queue expires unless refreshed.
    pub until: [Time; MAX_QUEUES],
    /// Since when each paused queue has been paused.
    pub since: [Time; MAX_QUEUES],
    /// Total paused time per queue (completed pauses).
    pub total: [Time; MAX_QUEUES],
    /// PAUSE frames received per queue (refreshes included).
    pub pauses_rx: [u64; MAX_QUEUES],
    /// Bit q: an EXPIRE check is scheduled (one at a time; it re-arms itself at `until`).
    pub expire_pending: u8,
}

/// Frame kinds carried in an `Event::Pfc` index (3 bits after the queue's 3).
const XOFF: u32 = 0;
const XON: u32 = 1;
const EXPIRE: u32 = 2;
const REFRESH: u32 = 3;

/// Largest port index a PFC event can carry.
pub const MAX_PFC_PORT: u32 = super::MAX_EVENT_INDEX >> 6;

#[inline]
fn code(port: u32, kind: u32, q: usize) -> u32 {
    (port << 6) | (kind << 3) | q as u32
}

pub struct Pfc {
    /// Lossless queues (bit mask of switch queue indices).
    pub lossless: u8,
    pub alpha: f64,
    pub xoff_static: Option<u64>,
    pub xon_offset: u64,
    pub frame: u64,
    pub quanta: u64,
    pub watchdog: Time,
    /// The port at the far end of each port's link (the other direction).
    pub rev: Vec<u32>,
    pub ing: Vec<Ingress>,
    pub eg: Vec<Egress>,
    /// Set when the watchdog found a deadlock: the run stops.
    pub deadlock: Option<String>,
}

impl Pfc {
    /// PFC state for a fabric whose reverse-port map is `rev`.
    pub fn new(cfg: &PfcConfig, lossless: u8, rev: Vec<u32>) -> Pfc {
        let n = rev.len();
        Pfc {
            lossless,
            alpha: cfg.alpha,
            xoff_static: cfg.xoff.map(|b| b.0),
            xon_offset: cfg.xon_offset.0,
            frame: cfg.frame.0,
            quanta: cfg.quanta as u64,
            watchdog: cfg.watchdog.0,
            rev,
            ing: vec![Ingress::default(); n],
            eg: vec![Egress::default(); n],
            deadlock: None,
        }
    }
}

/// Headroom for one (ingress port, lossless queue): 2 × rate × delay + 2 MTU + one PAUSE
/// frame, in bytes (see the module docs).
pub fn auto_headroom(rate_bps: u64, delay: Time, mtu_wire: u64, frame: u64) -> u64 {
    let wire = (rate_bps as u128 * delay as u128 / 8 / dcnsim_engine::SEC as u128) as u64;
    2 * wire + 2 * mtu_wire + frame
}

impl Sim {
    /// Turns PFC on at every switch for the `lossless` queues (the switch profile must have
    /// been compiled with the same mask): reserves each (ingress port, lossless queue)'s
    /// headroom out of its switch's buffer. `mtu_wire` is a full frame's wire size.
    pub fn enable_pfc(
        &mut self,
        cfg: &PfcConfig,
        lossless: u8,
        mtu_wire: u64,
    ) -> Result<(), String> {
        let n_ports = self.ports.len() as u32;
        if n_ports > MAX_PFC_PORT {
            return Err(format!(
                "the fabric has {n_ports} ports; PFC supports at most {MAX_PFC_PORT}"
            ));
        }
        let per_q = lossless.count_ones() as u64;
        let mut state = Pfc::new(cfg, lossless, self.rev.clone());
        let mut reserved = vec![0u64; self.nodes.len()];
        for (pi, port) in self.ports.iter().enumerate() {
            if self.nodes[port.node as usize].kind == NodeKind::Host {
                continue;
            }
            let h = match cfg.headroom {
                Some(b) => b.0,
                None => auto_headroom(port.clock.rate().0, port.delay, mtu_wire, cfg.frame.0),
            };
            state.ing[pi].headroom = h;
            reserved[port.node as usize] += h * per_q;
        }
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if node.kind == NodeKind::Host {
                continue;
            }
            if reserved[i] >= node.pool.total {
                return Err(format!(
                    "switch {} reserves {} B of PFC headroom ({per_q} lossless queues × its \
                     ports), not less than its {} B buffer; expected a larger shared_buffer, a \
                     smaller headroom or fewer lossless queues",
                    node.name, reserved[i], node.pool.total
                ));
            }
            node.pool.headroom = reserved[i];
        }
        self.pfc = Some(Box::new(state));
        Ok(())
    }

    /// The dynamic (or static) XOFF threshold at switch `node`.
    #[inline]
    fn pfc_threshold(&self, node: usize) -> u64 {
        let pfc = self.pfc.as_ref().unwrap();
        match pfc.xoff_static {
            Some(x) => x,
            None => {
                let pool = &self.nodes[node].pool;
                let free = pool
                    .total
                    .saturating_sub(pool.headroom)
                    .saturating_sub(pool.used);
                (pfc.alpha * free as f64) as u64
            }
        }
    }

    /// A packet `id` was admitted to queue `q` of a switch port: ingress accounting if the
    /// queue is lossless. Out of line, like `pfc_on_leave`.
    #[inline(never)]
    pub(super) fn pfc_on_enqueue(&mut self, q: usize, id: PktId) {
        let lossless = self.pfc.as_ref().unwrap().lossless;
        let p = self.arena.get(id);
        if lossless & (1 << q) != 0 && p.ingress != NIL {
            let (ingress, wire) = (p.ingress, p.wire as u64);
            self.pfc_enqueued(ingress, q, wire);
        }
    }

    /// A packet from switch ingress `ingress` was admitted to lossless queue `q`.
    fn pfc_enqueued(&mut self, ingress: u32, q: usize, wire: u64) {
        let node = self.ports[ingress as usize].node as usize;
        let thr = self.pfc_threshold(node);
        let pfc = self.pfc.as_mut().unwrap();
        let ing = &mut pfc.ing[ingress as usize];
        ing.bytes[q] += wire;
        if ing.xoff & (1 << q) == 0 && ing.bytes[q] > thr {
            ing.xoff |= 1 << q;
            self.pfc_send(ingress, q, true);
        }
    }

    /// A packet that arrived on switch ingress `ingress` left lossless queue `q`.
    pub(super) fn pfc_dequeued(&mut self, ingress: u32, q: usize, wire: u64) {
        let node = self.ports[ingress as usize].node as usize;
        let thr = self.pfc_threshold(node);
        let pfc = self.pfc.as_mut().unwrap();
        let off = pfc.xon_offset;
        let ing = &mut pfc.ing[ingress as usize];
        ing.bytes[q] -= wire;
        if ing.xoff & (1 << q) != 0 && (ing.bytes[q] == 0 || ing.bytes[q] + off <= thr) {
            ing.xoff &= !(1 << q);
            self.pfc_send(ingress, q, false);
        }
    }

    /// How long one PAUSE pauses the egress `port` (quanta × 512 bit times at its rate).
    fn pfc_pause_time(&self, port: u32) -> Time {
        let q = self.pfc.as_ref().unwrap().quanta;
        self.ports[port as usize].clock.tx_time(q * 64)
    }

    /// How often switch port `out` refreshes a PAUSE: half the pause time at the upstream,
    /// but never faster than the link can carry PAUSE frames (a tiny `quanta` would
    /// otherwise ask for a refresh every few nanoseconds).
    fn pfc_refresh_every(&self, out: u32) -> Time {
        let pfc = self.pfc.as_ref().unwrap();
        let up = pfc.rev[out as usize];
        let frame = self.ports[out as usize].clock.tx_time(pfc.frame);
        (self.pfc_pause_time(up) / 2).max(frame).max(1)
    }

    /// Sends a PAUSE (`xoff`) or RESUME for queue `q` out of switch port `out`.
    fn pfc_send(&mut self, out: u32, q: usize, xoff: bool) {
        let now = self.ev.now();
        let pfc = self.pfc.as_mut().unwrap();
        let frame = pfc.frame;
        let up = pfc.rev[out as usize];
        let ing = &mut pfc.ing[out as usize];
        if xoff {
            ing.pause_sent[q] += 1;
        } else {
            ing.resume_sent[q] += 1;
        }
        // The frame waits for the one on the wire, then goes before queued data and holds
        // the link for its serialization.
        let p = &mut self.ports[out as usize];
        let start = now.max(p.busy_until);
        let ser = p.clock.tx_time(frame);
        p.busy_until = start + ser;
        p.busy_time += ser;
        let arrive = start + ser + p.delay;
        let kind = if xoff { XOFF } else { XON };
        self.ev.push(arrive, Event::Pfc(code(up, kind, q)));
        if xoff {
            let ing = &mut self.pfc.as_mut().unwrap().ing[out as usize];
            ing.last_pause[q] = now;
            if ing.refresh_pending & (1 << q) == 0 {
                // Refresh at half the pause time (as measured at the upstream's rate); one
                // check pending at a time, re-armed from the last PAUSE.
                ing.refresh_pending |= 1 << q;
                let at = now + self.pfc_refresh_every(out);
                self.ev.push(at, Event::Pfc(code(out, REFRESH, q)));
            }
        }
    }

    // Out of line: kept out of the per-event `dispatch` match so it stays small enough to
    // inline into the event loop.
    #[inline(never)]
    pub(super) fn on_pfc(&mut self, c: u32) {
        let now = self.ev.now();
        let (port, kind, q) = (c >> 6, (c >> 3) & 7, (c & 7) as usize);
        match kind {
            REFRESH => {
                let half = self.pfc_refresh_every(port);
                let ing = &mut self.pfc.as_mut().unwrap().ing[port as usize];
                ing.refresh_pending &= !(1 << q);
                if ing.xoff & (1 << q) != 0 {
                    let due = ing.last_pause[q] + half;
                    if now >= due {
                        self.pfc_send(port, q, true);
                    } else {
                        ing.refresh_pending |= 1 << q;
                        self.ev.push(due, Event::Pfc(code(port, REFRESH, q)));
                    }
                }
            }
            XOFF => {
                let pt = self.pfc_pause_time(port);
                let p = &self.ports[port as usize];
                let uq = self.profiles[p.profile as usize].queue_of(q as u8);
                let waiting = p.q[uq].pkts > 0 || p.driver.pkts > 0;
                let newly = p.paused & (1 << uq) == 0;
                let pfc = self.pfc.as_mut().unwrap();
                let watchdog = pfc.watchdog;
                let eg = &mut pfc.eg[port as usize];
                eg.pauses_rx[uq] += 1;
                eg.until[uq] = now + pt;
                if newly {
                    eg.since[uq] = now;
                    self.ports[port as usize].paused |= 1 << uq;
                } else if watchdog > 0 && waiting && now - eg.since[uq] >= watchdog {
                    let since = eg.since[uq];
                    self.pfc_deadlock(port, uq, since);
                    return;
                }
                if eg.expire_pending & (1 << uq) == 0 {
                    eg.expire_pending |= 1 << uq;
                    self.ev.push(now + pt, Event::Pfc(code(port, EXPIRE, uq)));
                }
            }
            XON => {
                let p = &self.ports[port as usize];
                let uq = self.profiles[p.profile as usize].queue_of(q as u8);
                self.pfc_unpause(port, uq);
            }
            _ => {
                // EXPIRE: only if no refresh extended the pause since; a later pause
                // re-arms the check at its own expiry.
                let paused = self.ports[port as usize].paused & (1 << q) != 0;
                let eg = &mut self.pfc.as_mut().unwrap().eg[port as usize];
                eg.expire_pending &= !(1 << q);
                if !paused {
                    return;
                }
                let until = eg.until[q];
                if now >= until {
                    self.pfc_unpause(port, q);
                } else {
                    eg.expire_pending |= 1 << q;
                    self.ev.push(until, Event::Pfc(code(port, EXPIRE, q)));
                }
            }
        }
    }

    fn pfc_unpause(&mut self, port: u32, q: usize) {
        let now = self.ev.now();
        let p = &mut self.ports[port as usize];
        if p.paused & (1 << q) == 0 {
            return;
        }
        p.paused &= !(1 << q);
        let eg = &mut self.pfc.as_mut().unwrap().eg[port as usize];
        eg.total[q] += now - eg.since[q];
        self.start_tx(port);
        if self.nic.on {
            // A RoCE NIC resumes its QPs of this priority (`flow::NicPull`).
            self.nic_wake(port, q);
        }
    }

    /// The watchdog fired: records what is stuck and stops the run.
    #[cold]
    fn pfc_deadlock(&mut self, port: u32, q: usize, since: Time) {
        let now = self.ev.now();
        let p = &self.ports[port as usize];
        let msg = format!(
            "switch.pfc.watchdog: PFC deadlock suspected: queue {q} of port {} → {} has been \
             paused for {:.3} ms without a break while holding {} packets; the run stopped \
             at {:.6} s",
            self.nodes[p.node as usize].name,
            self.nodes[p.peer as usize].name,
            dcnsim_engine::to_secs(now - since) * 1e3,
            p.q[q].pkts + p.driver.pkts,
            dcnsim_engine::to_secs(now),
        );
        self.notes.push(msg.clone());
        self.pfc.as_mut().unwrap().deadlock = Some(msg);
        self.ev.clear();
    }

    /// Paused time of egress `port`'s queue `q` up to now (ongoing pause included).
    pub fn pfc_paused_time(&self, port: usize, q: usize) -> Time {
        let Some(pfc) = &self.pfc else { return 0 };
        let eg = &pfc.eg[port];
        let ongoing = if self.ports[port].paused & (1 << q) != 0 {
            self.now() - eg.since[q]
        } else {
            0
        };
        eg.total[q] + ongoing
    }

    /// Ingress bookkeeping of a packet leaving a switch egress: `id` just left `port`.
    /// Out of line: the fabric's hot path only tests whether PFC is on.
    #[inline(never)]
    pub(super) fn pfc_on_leave(&mut self, port: u32, id: PktId) {
        let p = self.arena.get(id);
        let ingress = p.ingress;
        if ingress == NIL {
            return; // sent by a host: no switch ingress to account
        }
        let pi = port as usize;
        let q = self.profiles[self.ports[pi].profile as usize].queue_of(p.class);
        let lossless = self.pfc.as_ref().unwrap().lossless;
        if lossless & (1 << q) != 0 {
            let wire = p.wire as u64;
            self.pfc_dequeued(ingress, q, wire);
        }
    }

    /// Checks the ingress accounting (tests): at every switch, the bytes counted per
    /// (ingress, lossless queue) add up to the lossless bytes its egress queues hold, and
    /// every queue it paused upstream is still over XON or awaiting its RESUME.
    pub fn check_pfc_accounting(&self) {
        let Some(pfc) = &self.pfc else { return };
        let mut held = vec![[0u64; MAX_QUEUES]; self.ports.len()];
        for port in self.ports.iter() {
            if self.nodes[port.node as usize].kind == NodeKind::Host {
                continue;
            }
            for (qi, list) in port.q.iter().enumerate() {
                if pfc.lossless & (1 << qi) == 0 {
                    continue;
                }
                let mut id = list.head;
                while id != NIL {
                    let p = self.arena.get(id);
                    held[p.ingress as usize][qi] += p.wire as u64;
                    id = p.next;
                }
            }
        }
        for (pi, h) in held.iter().enumerate() {
            assert_eq!(
                *h, pfc.ing[pi].bytes,
                "PFC ingress bytes of port {pi} differ from the packets held"
            );
        }
    }
}
