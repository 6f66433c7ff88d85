//! Columnar results: one row per flow, per (port, queue), per sample.
//! Times are reported in seconds (f64); unfinished flows have NaN finish/FCT.

use super::Sim;
use crate::topo::NodeKind;
use dcnsim_engine::to_secs;

/// Calls macro `$m` with every column of [`FlowTable`] (one list for the operations on all
/// of them).
macro_rules! flow_columns {
    ($m:ident) => {
        $m!(
            flow_id,
            class_id,
            src,
            dst,
            size,
            start_s,
            finish_s,
            fct_s,
            ideal_fct_s,
            slowdown,
            completed,
            in_window,
            sender_done_s,
            deadline_s,
            data_pkts,
            retx_pkts,
            fast_retx,
            rto_count,
            spurious_rto,
            spurious_retx,
            ecn_marks,
            max_cwnd,
            max_pkt_drops,
            drops,
            tag,
            priority,
            cqcn_halts,
            cnps,
            established_s,
            fct_established_s,
            rx_first_sent_s,
            rx_all_s,
            syn_retx,
            tlp_probes,
            tlp_recoveries,
            undo_rto,
            undo_fast,
            important_pkts,
            important_bytes,
            important_drops,
            clock_bytes,
            tlt_lost_segs,
            srtt_s,
            rto_s,
            delivered,
            alpha,
            reliability,
            reflex_intervals,
            reflex_low,
            r_fair_bps
        )
    };
}

#[derive(Default, Debug, Clone)]
pub struct FlowTable {
    pub flow_id: Vec<u64>,
    pub class_id: Vec<u64>,
    pub src: Vec<u64>,
    pub dst: Vec<u64>,
    pub size: Vec<u64>,
    pub start_s: Vec<f64>,
    pub finish_s: Vec<f64>,
    pub fct_s: Vec<f64>,
    pub ideal_fct_s: Vec<f64>,
    pub slowdown: Vec<f64>,
    pub completed: Vec<bool>,
    pub in_window: Vec<bool>,
    pub sender_done_s: Vec<f64>,
    pub deadline_s: Vec<f64>,
    pub data_pkts: Vec<u64>,
    pub retx_pkts: Vec<u64>,
    pub fast_retx: Vec<u64>,
    pub rto_count: Vec<u64>,
    pub spurious_rto: Vec<u64>,
    pub spurious_retx: Vec<u64>,
    pub ecn_marks: Vec<u64>,
    pub max_cwnd: Vec<u64>,
    pub max_pkt_drops: Vec<u64>,
    pub drops: Vec<u64>,
    pub tag: Vec<u64>,
    pub priority: Vec<u64>,
    /// TCP+: times marked probe echoes halted the sender.
    pub cqcn_halts: Vec<u64>,
    pub cnps: Vec<u64>,
    /// When data could first flow (SYN-ACK arrival with a handshake, else the start), the
    /// FCT from there, and SYN retransmissions.
    pub established_s: Vec<f64>,
    pub fct_established_s: Vec<f64>,
    /// RoCE: when the first copy of the flow's first packet to reach the receiver was sent,
    /// and when every packet had reached it at least once, in any order (the TLT RoCE
    /// reference's application-level timing; NaN for other transports and until then).
    pub rx_first_sent_s: Vec<f64>,
    pub rx_all_s: Vec<f64>,
    pub syn_retx: Vec<u64>,
    /// Tail-loss probes sent and losses they recovered (RFC 8985 §7).
    pub tlp_probes: Vec<u64>,
    pub tlp_recoveries: Vec<u64>,
    /// Timeouts / fast recoveries undone as spurious (F-RTO, timestamps, D-SACK).
    pub undo_rto: Vec<u64>,
    pub undo_fast: Vec<u64>,
    /// TLT: important data segments sent, their payload bytes, those dropped, bytes sent by
    /// important ACK-clocking, segments an Important Echo revealed as lost.
    pub important_pkts: Vec<u64>,
    pub important_bytes: Vec<u64>,
    pub important_drops: Vec<u64>,
    pub clock_bytes: Vec<u64>,
    pub tlt_lost_segs: Vec<u64>,
    /// The sender's smoothed RTT and RTO when it finished (or at the end of the run); NaN
    /// before its first RTT sample.
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    /// Acknowledged bytes / size when the sender finished or the run ended (REFLEX partial
    /// delivery: at least the flow's reliability).
    pub delivered: Vec<f64>,
    /// REFLEX: the flow's α (inf for regular flows) and r, intervals decided and spent
    /// LOW, and the last fair-share estimate in bit/s (NaN: none or a regular flow).
    pub alpha: Vec<f64>,
    pub reliability: Vec<f64>,
    pub reflex_intervals: Vec<u64>,
    pub reflex_low: Vec<u64>,
    pub r_fair_bps: Vec<f64>,
}

#[derive(Default, Debug, Clone)]
pub struct QueueTable {
    pub node: Vec<u64>,
    pub node_name: Vec<String>,
    pub port: Vec<u64>,
    pub peer_name: Vec<String>,
    pub queue: Vec<u64>,
    pub pkts_in: Vec<u64>,
    pub bytes_in: Vec<u64>,
    pub pkts_out: Vec<u64>,
    pub bytes_out: Vec<u64>,
    pub drops: Vec<u64>,
    pub drops_static: Vec<u64>,
    pub drops_port: Vec<u64>,
    pub drops_shared: Vec<u64>,
    pub drops_scheme: Vec<u64>,
    /// Colour-aware dropping (red at K) and lossless drops for want of PFC headroom.
    pub drops_colour: Vec<u64>,
    pub drops_headroom: Vec<u64>,
    /// Drops by the packet's colour (any reason).
    pub green_drops: Vec<u64>,
    pub red_drops: Vec<u64>,
    /// PFC: PAUSE frames (refreshes included) and RESUMEs sent out of this port for this
    /// priority (the port's switch is the congested downstream), PAUSEs received, and the
    /// time this egress queue spent paused.
    pub pfc_pause_sent: Vec<u64>,
    pub pfc_resume_sent: Vec<u64>,
    pub pfc_pause_rx: Vec<u64>,
    pub pfc_paused_s: Vec<f64>,
    pub ecn_marks: Vec<u64>,
    pub max_bytes: Vec<u64>,
    pub max_pkts: Vec<u64>,
    pub busy_s: Vec<f64>,
    pub is_host: Vec<bool>,
}

#[derive(Default, Debug, Clone)]
pub struct SampleTable {
    pub t_s: Vec<f64>,
    pub node: Vec<u64>,
    pub port: Vec<u64>,
    pub queue: Vec<u64>,
    pub bytes: Vec<u64>,
    /// In the interval since the previous sample: bytes dequeued from the queue
    /// toward the wire, the port's utilization (time spent serializing / interval,
    /// the same on each queue row of a port), drops and ECN marks.
    pub tx_bytes: Vec<u64>,
    pub util: Vec<f64>,
    pub drops: Vec<u64>,
    pub marks: Vec<u64>,
}

/// Goodput per traffic class over time (`output.queue_sample_interval`).
#[derive(Default, Debug, Clone)]
pub struct ClassSampleTable {
    pub t_s: Vec<f64>,
    pub class_id: Vec<u64>,
    /// Payload bytes of data segments delivered to receivers in the interval ending at
    /// `t_s`, and as a rate over that interval.
    pub bytes: Vec<u64>,
    pub goodput_bps: Vec<f64>,
}

#[derive(Default, Debug, Clone)]
pub struct TraceTable {
    pub t_s: Vec<f64>,
    pub flow_id: Vec<u64>,
    pub cwnd: Vec<u64>,
    /// Slow-start threshold in bytes (infinite until the first reduction).
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    pub bytes_acked: Vec<u64>,
    pub inflight: Vec<u64>,
    /// cwnd / srtt in bits per second (NaN before the first RTT sample).
    pub rate_bps: Vec<f64>,
    /// DCTCP α (NaN for other congestion controls).
    pub alpha: Vec<f64>,
    /// REFLEX: the fair-share estimate in bit/s (NaN: none yet or a regular flow) and
    /// whether the sample's interval is LOW.
    pub r_fair_bps: Vec<f64>,
    pub reflex_low: Vec<bool>,
}

/// One row per pipe of the sender shim (C3 / ElasticSwitch; empty without a shim scheme).
/// Rates in bits/s on the wire (outer header included); means over the control intervals
/// in which the pipe had flows or backlog.
#[derive(Default, Debug, Clone)]
pub struct PipeTable {
    pub pipe_id: Vec<u64>,
    pub src: Vec<u64>,
    pub dst: Vec<u64>,
    /// C3 objective (`ts`, `ls`, `ds`, `ps`, `be`); ElasticSwitch pairs are `pair`.
    pub objective: Vec<String>,
    /// Flows that entered the pipe, and flows the coordinator demoted out of it (to the BE
    /// pipe of the same hosts); `demoted` = at least one.
    pub flows: Vec<u64>,
    pub demoted_flows: Vec<u64>,
    pub demoted: Vec<bool>,
    /// Mean and largest guarantee R_G, mean released rate, limiter rate max(R_w, R_G) at the
    /// end, and the last weight (normalised) and raw weight.
    pub guarantee_bps: Vec<f64>,
    pub max_guarantee_bps: Vec<f64>,
    pub mean_rate_bps: Vec<f64>,
    pub final_rate_bps: Vec<f64>,
    pub weight: Vec<f64>,
    pub raw_weight: Vec<f64>,
    /// Control intervals the pipe was busy.
    pub intervals: Vec<u64>,
    /// Packets and wire bytes released; packets the receiver counted and the fraction of
    /// them with a CE-marked outer header; inner CE marks set at the pipe queue; drops at
    /// the pipe queue.
    pub tx_pkts: Vec<u64>,
    pub tx_bytes: Vec<u64>,
    pub rx_pkts: Vec<u64>,
    pub marked_fraction: Vec<f64>,
    pub inner_marks: Vec<u64>,
    pub drops: Vec<u64>,
    /// Feedback reports that reached the sender (C3 `feedback = "packet"`; 0 otherwise).
    pub reports: Vec<u64>,
}

/// One row per busy pipe per control interval (the shim's `PipeSample`s).
#[derive(Default, Debug, Clone)]
pub struct PipeSampleTable {
    pub t_s: Vec<f64>,
    pub pipe_id: Vec<u64>,
    /// Limiter rate max(R_w, R_G) and R_G after the interval's update; the weight used.
    pub rate_bps: Vec<f64>,
    pub guarantee_bps: Vec<f64>,
    pub weight: Vec<f64>,
    /// Marked fraction reported for the interval that ended, and the wire rate released
    /// in it.
    pub marked_fraction: Vec<f64>,
    pub sent_bps: Vec<f64>,
    /// Packets queued in the pipe at the tick.
    pub backlog: Vec<u64>,
}

fn opt_s(t: Option<u64>) -> f64 {
    t.map(to_secs).unwrap_or(f64::NAN)
}

impl FlowTable {
    /// Rows.
    pub fn len(&self) -> usize {
        self.flow_id.len()
    }
    pub fn is_empty(&self) -> bool {
        self.flow_id.is_empty()
    }

    /// Appends flow `id`'s row from its description and record.
    pub fn push_row(
        &mut self,
        id: usize,
        d: &crate::transport::FlowDesc,
        r: &crate::transport::FlowRecord,
    ) {
        self.flow_id.push(id as u64);
        self.class_id.push(d.traffic_class as u64);
        self.src.push(d.src as u64);
        self.dst.push(d.dst as u64);
        self.size.push(d.size);
        self.start_s.push(to_secs(d.start));
        self.finish_s.push(opt_s(r.finish));
        let fct = r.finish.map(|f| f - d.start);
        self.fct_s.push(opt_s(fct));
        self.ideal_fct_s.push(to_secs(d.ideal_fct));
        self.slowdown.push(
            fct.map(|x| x as f64 / d.ideal_fct.max(1) as f64)
                .unwrap_or(f64::NAN),
        );
        self.completed.push(r.finish.is_some());
        self.in_window.push(d.in_window);
        self.sender_done_s.push(opt_s(r.sender_done));
        self.deadline_s.push(opt_s(d.deadline));
        self.data_pkts.push(r.data_pkts);
        self.retx_pkts.push(r.retx_pkts);
        self.fast_retx.push(r.fast_retx);
        self.rto_count.push(r.rto_count);
        self.spurious_rto.push(r.spurious_rto);
        self.spurious_retx.push(r.spurious_retx);
        self.ecn_marks.push(r.ecn_marks);
        self.max_cwnd.push(r.max_cwnd);
        self.max_pkt_drops.push(r.max_pkt_drops as u64);
        self.drops.push(r.drops);
        self.tag.push(d.tag as u64);
        self.priority.push(d.class as u64);
        self.cqcn_halts.push(r.cqcn_halts);
        self.cnps.push(r.cnps);
        self.established_s.push(opt_s(r.established));
        self.fct_established_s
            .push(opt_s(r.finish.zip(r.established).map(|(f, e)| f - e)));
        self.rx_first_sent_s.push(opt_s(r.rx_first_sent));
        self.rx_all_s.push(opt_s(r.rx_all));
        self.syn_retx.push(r.syn_retx as u64);
        self.tlp_probes.push(r.tlp_probes);
        self.tlp_recoveries.push(r.tlp_recoveries);
        self.undo_rto.push(r.undo_rto);
        self.undo_fast.push(r.undo_fast);
        self.important_pkts.push(r.important_pkts);
        self.important_bytes.push(r.important_bytes);
        self.important_drops.push(r.important_drops);
        self.clock_bytes.push(r.clock_bytes);
        self.tlt_lost_segs.push(r.tlt_lost_segs);
        self.srtt_s.push(opt_s(r.srtt));
        self.rto_s.push(opt_s(r.rto));
        // A regular flow whose sender finished delivered everything (whatever its
        // transport records); a flexible one what was acknowledged.
        let acked = if d.flex.is_none() && r.sender_done.is_some() {
            d.size
        } else {
            r.acked
        };
        self.delivered.push(acked as f64 / d.size.max(1) as f64);
        self.alpha.push(d.flex.map_or(f64::INFINITY, |x| x.alpha));
        self.reliability.push(d.flex.map_or(1.0, |x| x.reliability));
        self.reflex_intervals.push(r.reflex_intervals);
        self.reflex_low.push(r.reflex_low);
        self.r_fair_bps
            .push(r.reflex_r_fair.map_or(f64::NAN, |x| x * 8.0));
    }

    /// Appends `other`'s rows.
    pub fn append(&mut self, other: FlowTable) {
        macro_rules! extend {
            ($($c:ident),*) => { $( self.$c.extend(other.$c); )* };
        }
        flow_columns!(extend);
    }

    /// Puts the rows in flow-id order (a streaming run retires flows out of id order).
    pub fn sort_by_flow_id(&mut self) {
        if self.flow_id.is_sorted() {
            return;
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_unstable_by_key(|&i| self.flow_id[i]);
        macro_rules! permute {
            ($($c:ident),*) => { $( self.$c = order.iter().map(|&i| self.$c[i].clone()).collect(); )* };
        }
        flow_columns!(permute);
    }
}

impl Sim {
    /// Every flow's row in flow-id order: the retired flows' rows not yet handed to a sink
    /// and the held flows' (a running endpoint's counters folded in).
    pub fn flow_table(&self) -> FlowTable {
        let mut t = self.flows.retired.clone();
        self.held_rows(&mut t);
        t.sort_by_flow_id();
        t
    }

    /// [`Sim::flow_table`] without copying the retired rows (they move out).
    pub fn take_flow_table(&mut self) -> FlowTable {
        let mut t = std::mem::take(&mut self.flows.retired);
        self.held_rows(&mut t);
        t.sort_by_flow_id();
        t
    }

    fn held_rows(&self, t: &mut FlowTable) {
        for (f, i) in self.flows.held_slots() {
            t.push_row(f as usize, &self.flows.desc[i], &self.flow_record(i));
        }
    }

    pub fn queue_table(&self) -> QueueTable {
        let mut t = QueueTable::default();
        for (pi, p) in self.ports.iter().enumerate() {
            let nq = self.profiles[p.profile as usize].nq as usize;
            let node = &self.nodes[p.node as usize];
            for q in 0..nq {
                let (s, c) = (&p.stats[q], &p.q[q]);
                t.node.push(p.node as u64);
                t.node_name.push(node.name.clone());
                t.port.push(pi as u64);
                t.peer_name.push(self.nodes[p.peer as usize].name.clone());
                t.queue.push(q as u64);
                t.pkts_in.push(c.pkts_in());
                t.bytes_in.push(c.bytes_in());
                t.pkts_out.push(c.pkts_out);
                t.bytes_out.push(c.bytes_out);
                t.drops.push(s.drops.iter().sum());
                t.drops_static.push(s.drops[0]);
                t.drops_port.push(s.drops[1]);
                t.drops_shared.push(s.drops[2]);
                t.drops_scheme.push(s.drops[3]);
                t.drops_colour.push(s.drops[4]);
                t.drops_headroom.push(s.drops[5]);
                t.green_drops.push(s.green_drops);
                t.red_drops.push(s.red_drops);
                let (ps, rs, rx) = self.pfc.as_ref().map_or((0, 0, 0), |f| {
                    (
                        f.ing[pi].pause_sent[q],
                        f.ing[pi].resume_sent[q],
                        f.eg[pi].pauses_rx[q],
                    )
                });
                t.pfc_pause_sent.push(ps);
                t.pfc_resume_sent.push(rs);
                t.pfc_pause_rx.push(rx);
                t.pfc_paused_s.push(to_secs(self.pfc_paused_time(pi, q)));
                t.ecn_marks.push(c.ecn_marks);
                t.max_bytes.push(c.max_bytes);
                t.max_pkts.push(c.max_pkts);
                t.busy_s.push(to_secs(p.busy_time));
                t.is_host.push(node.kind == NodeKind::Host);
            }
        }
        t
    }

    pub fn trace_table(&self) -> TraceTable {
        let mut t = TraceTable::default();
        for r in &self.traces {
            t.t_s.push(to_secs(r.t));
            t.flow_id.push(r.flow as u64);
            t.cwnd.push(r.cwnd);
            t.ssthresh.push(if r.ssthresh >= u64::MAX / 2 {
                f64::INFINITY
            } else {
                r.ssthresh as f64
            });
            t.srtt_s.push(opt_s(r.srtt));
            t.rto_s.push(to_secs(r.rto));
            t.bytes_acked.push(r.snd_una);
            t.inflight.push(r.inflight);
            t.rate_bps.push(
                r.srtt
                    .map(|s| r.cwnd as f64 * 8.0 / to_secs(s.max(1)))
                    .unwrap_or(f64::NAN),
            );
            t.alpha.push(r.alpha.unwrap_or(f64::NAN));
            t.r_fair_bps.push(r.r_fair.map_or(f64::NAN, |x| x * 8.0));
            t.reflex_low.push(r.low);
        }
        t
    }

    pub fn sample_table(&self) -> SampleTable {
        let mut t = SampleTable::default();
        // The first sample is at time 0 (nothing before it); each later one covers
        // `sample_every`.
        let iv = to_secs(self.sample_every.max(1));
        for s in &self.samples {
            let port = &self.ports[s.port as usize];
            t.t_s.push(to_secs(s.t));
            t.node.push(port.node as u64);
            t.port.push(s.port as u64);
            t.queue.push(s.queue as u64);
            t.bytes.push(s.bytes);
            t.tx_bytes.push(s.tx_bytes);
            t.util
                .push(if s.t == 0 { 0.0 } else { to_secs(s.busy) / iv });
            t.drops.push(s.drops);
            t.marks.push(s.marks);
        }
        t
    }

    pub fn class_sample_table(&self) -> ClassSampleTable {
        let mut t = ClassSampleTable::default();
        let iv = to_secs(self.sample_every.max(1));
        for s in &self.class_samples {
            t.t_s.push(to_secs(s.t));
            t.class_id.push(s.class as u64);
            t.bytes.push(s.bytes);
            t.goodput_bps.push(if s.t == 0 {
                0.0
            } else {
                s.bytes as f64 * 8.0 / iv
            });
        }
        t
    }
}
