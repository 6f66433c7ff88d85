//! TCP core: configuration and the wire-level types exchanged between the endpoints and the
//! simulator.
//!
//! Sequence space: a flow of `flow_bytes` bytes occupies sequence numbers `[0, flow_bytes)`
//! as plain `u64` (no wrap-around, no SYN/FIN sequence slots; connection setup is the
//! simulator's business). Segments are MSS-aligned: segment *i* covers
//! `[i*mss, min((i+1)*mss, flow_bytes))`, so only the flow's last segment is short.
//!
//! Invariants kept by the sender (checked by `debug_assert!` and by the property tests):
//! `snd_una <= snd_nxt <= flow_bytes`, `snd_nxt - snd_una <= rwnd_bytes`, `cwnd >= mss`, and
//! a segment that is not an RFC-mandated retransmission is only sent when it keeps the
//! bytes in flight within `cwnd` (+ NewReno recovery inflation / RFC 3042 allowance) and
//! within `rwnd_bytes`.

pub mod hystart;
pub mod rack;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;

use dcnsim_engine::{Time, MS, SEC, US};

/// When a timer of duration `d` armed at `now` fires: exactly (`tick = 0`), or on a tick
/// boundary as Linux's `jiffies + usecs_to_jiffies(d)`: (⌊now/tick⌋ + ⌈d/tick⌉)·tick.
#[inline]
pub fn timer_deadline(now: Time, d: Time, tick: Time) -> Time {
    if tick == 0 {
        return now.saturating_add(d);
    }
    (now / tick)
        .saturating_add(d.div_ceil(tick))
        .saturating_mul(tick)
}

/// Which congestion-control algorithm a sender runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcKind {
    /// RFC 5681 slow start / congestion avoidance, RFC 6582 (or RFC 6675 with SACK) recovery.
    NewReno,
    /// RFC 9438 CUBIC.
    Cubic,
    /// RFC 8257 DCTCP (requires `ecn = true`).
    Dctcp,
    /// D2TCP (Vamanan et al. 2012): DCTCP with a deadline-aware cut α^d (requires `ecn`).
    D2tcp,
    /// L2DCT (Munir et al. 2013): DCTCP with size-weighted increase and cut (requires `ecn`).
    L2dct,
    /// RFC 6817 LEDBAT: delay-based scavenger holding queuing delay near `ledbat_target`.
    Ledbat,
    /// TCP-LP (Kuzmanovic & Knightly, INFOCOM 2003): delay-based scavenger with early
    /// congestion indication and an inference timeout.
    TcpLp,
}

impl CcKind {
    /// DCTCP and its derivatives (D2TCP, L2DCT): ECT retransmissions, ECE does not block
    /// growth, α is tracked, `ecn` is required.
    pub fn is_dctcp_family(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::D2tcp | CcKind::L2dct)
    }
}

/// How the retransmission timeout is computed (see [`crate::RtoEstimator`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RtoMode {
    /// RFC 6298: RTO = max(rto_min, SRTT + max(G, 4·RTTVAR)), doubled per consecutive timeout.
    Rfc6298,
    /// Linux-like: RTO = SRTT + max(4·mdev, rto_min), Linux's asymmetric mdev update.
    Linux,
    /// A fixed RTO that never backs off (TLT Fig. 2 uses a static 160 µs).
    Static(Time),
}

/// How slow start grows the window per ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartIncrease {
    /// RFC 3465 §2.2 appropriate byte counting: cwnd += min(bytes acked, L·SMSS); `l = 0`
    /// means no limit (Linux `tcp_slow_start` adds every segment acked).
    Abc { l: u32 },
    /// One SMSS per ACK whatever it acknowledges (ns-3 `TcpNewReno::SlowStart`).
    PerAck,
}

/// What a loss reduction halves (Reno-family ssthresh, RFC 5681 eq. (4) and variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// RFC 5681 eq. (4): FlightSize = SND.NXT − SND.UNA.
    FlightSize,
    /// RFC 6675 `pipe`, the bytes actually in the network (ns-3 `BytesInFlight()`).
    Pipe,
    /// The congestion window (Linux `tcp_reno_ssthresh`: max(cwnd/2, 2)).
    Cwnd,
}

/// How slow start may end before the first loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartMode {
    /// Slow start runs until ssthresh or a loss.
    Off,
    /// Linux `tcp_cubic.c` HyStart: ACK-train and delay-increase exits (ssthresh = cwnd).
    Linux,
    /// RFC 9406 HyStart++: delay-increase exit into Conservative Slow Start.
    Rfc9406,
}

/// Why a segment is a retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetxCause {
    /// Fast retransmit on duplicate ACKs / SACK loss detection (the first retransmission of
    /// a recovery episode).
    Fast,
    /// Retransmission after a retransmission timeout (go-back-N from `snd_una`).
    Rto,
    /// Further retransmissions during fast recovery (NewReno partial ACK, SACK holes).
    Recovery,
    /// A tail-loss probe that retransmits the last segment (RFC 8985 §7.3).
    Probe,
}

/// TLT marks (Lim et al., EuroSys 2021, §5.1 and Alg. 1). On a data segment: Important
/// Data / Important Clock Data; on an ACK: Important Echo / Important Clock Echo. The
/// simulator colours marked packets green and the other data of a TLT flow red (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TltMark {
    /// Unimportant.
    #[default]
    None,
    /// Important Data (on a segment) / Important Echo (on an ACK).
    Important,
    /// Important Clock Data / Important Clock Echo: sent by important ACK-clocking
    /// (Appendix A), so that its duplicate ACK is not taken for a congestion signal.
    ImportantClock,
}

/// What important ACK-clocking sends when an Important Echo finds no window (TLT §5.1,
/// Fig. 17 ablation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TltClocking {
    /// One MSS of lost data if the echo revealed a loss, else the first unacknowledged byte.
    Adaptive,
    /// Always one MSS (lost data first, else from the first unacknowledged byte).
    Mtu,
    /// Always one byte (of lost data first, else the first unacknowledged byte).
    Byte,
}

/// A data segment emitted by the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// `None` for the first transmission of these bytes.
    pub retx: Option<RetxCause>,
    /// ECN-capable transport codepoint (RFC 3168 §6.1.5: not on retransmissions, except for
    /// DCTCP, which needs marks on every packet, as Linux does for ECN-dependent CCs).
    pub ect: bool,
    /// RFC 7323 TSval: the send time (the simulator's perfect clock).
    pub tsval: Time,
    /// TLT mark (`TltMark::None` unless `TcpConfig::tlt` is set).
    pub mark: TltMark,
}

/// An acknowledgement emitted by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Ack {
    /// Cumulative: the next byte expected.
    pub ack: u64,
    /// `[start, end)` SACK blocks, most recent first (RFC 2018 §4); first `n_sack` valid.
    pub sack: [(u64, u64); 3],
    pub n_sack: u8,
    /// ECN echo. The receiver runs the RFC 8257 §3.2 two-state CE machine for every
    /// ECN-capable flow (DCTCP and classic). Classic RFC 3168 ECE is "sticky until CWR";
    /// our segments carry no CWR bit, so instead ECE reflects CE exactly and the classic
    /// sender reacts at most once per window (RFC 3168 §6.1.2). The difference only matters
    /// if the single ECE-carrying ACK is lost.
    pub ece: bool,
    /// Echoed TSval (RFC 7323 §4.3 TS.Recent rules). 0 if timestamps are off.
    pub tsecr: Time,
    /// One-way delay of the segment that triggered this ACK (perfect clock; for LEDBAT /
    /// TCP-LP).
    pub owd: Time,
    /// RFC 2883: `sack[0]` is a D-SACK block reporting a duplicate segment (it may lie
    /// below `ack`).
    pub dsack: bool,
    /// TLT echo mark: `Important` = Important Echo, `ImportantClock` = Important Clock Echo.
    pub mark: TltMark,
}

impl Ack {
    /// The valid SACK blocks.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..(self.n_sack as usize).min(3)]
    }

    /// The D-SACK block, if this ACK reports a duplicate (RFC 2883 §4).
    pub fn dsack_block(&self) -> Option<(u64, u64)> {
        (self.dsack && self.n_sack > 0).then_some(self.sack[0])
    }

    /// The regular SACK blocks (without the D-SACK block).
    pub fn sack_ranges(&self) -> &[(u64, u64)] {
        let b = self.sack_blocks();
        if self.dsack && !b.is_empty() {
            &b[1..]
        } else {
            b
        }
    }
}

/// A data segment as delivered to the receiver.
#[derive(Clone, Copy, Debug, Default)]
pub struct RxSegment {
    pub seq: u64,
    pub len: u32,
    /// Congestion Experienced codepoint set by the network.
    pub ce: bool,
    pub tsval: Time,
    /// TLT mark the sender put on the segment.
    pub mark: TltMark,
}

/// Per-flow TCP parameters. Every field is a run-time parameter; `Default` gives the values
/// documented on each field.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Payload bytes per full segment. Default 1460 (MTU 1500 − IP 20 − TCP 20; C3/PIAS
    /// ns-2 payload; spec §0).
    pub mss: u32,
    /// Initial window in segments. Default 10 (RFC 6928, Linux default; TLT).
    pub init_cwnd_pkts: u32,
    /// Receive window = send-buffer bound on `snd_nxt − snd_una` and on bytes in flight.
    /// Default 1,000,000 (LPF: 1 MB socket buffers).
    pub rwnd_bytes: u64,
    /// RFC 2018 SACK + RFC 6675 scoreboard/pipe loss recovery. Default true (LPF, TLT).
    pub sack: bool,
    /// Duplicate-ACK threshold (RFC 5681 §3.2 / RFC 6675 DupThresh). Default 3; TLT uses 1.
    pub dupack_thresh: u32,
    /// Congestion control. Default Cubic (Linux default; LPF default transport).
    pub cc: CcKind,
    /// Send data as ECT and react to ECE: DCTCP reaction if `cc == Dctcp`, otherwise classic
    /// RFC 3168 (reduce as on loss, at most once per window, no retransmission). Default false.
    pub ecn: bool,
    /// DCTCP EWMA gain g. Default 1/16 (DCTCP paper, RFC 8257 §3.3, PIAS/TLT configs).
    pub dctcp_g: f64,
    /// DCTCP initial α. Default 1.0 (Linux `dctcp_alpha_on_init`, ns-3).
    pub dctcp_alpha_init: f64,
    /// D2TCP lower / upper clamp of the deadline imminence factor d. Default 0.5 / 2.0
    /// (Vamanan et al. 2012 §3.1.2; spec §4.3).
    pub d2tcp_d_min: f64,
    pub d2tcp_d_max: f64,
    /// L2DCT weight bounds w_min / w_max. Default 0.125 / 2.5 (PIAS-NS2 L2DCT; spec §4.4).
    pub l2dct_w_min: f64,
    pub l2dct_w_max: f64,
    /// L2DCT bytes sent below which w = w_max / from which w = w_min. Default 204,800 /
    /// 1,048,576 (PIAS-NS2 L2DCT; spec §4.4).
    pub l2dct_size_lo: u64,
    pub l2dct_size_hi: u64,
    /// CUBIC C (segments/s³). Default 0.4 (RFC 9438 §5).
    pub cubic_c: f64,
    /// CUBIC β. Default 0.7 (RFC 9438 §4.6).
    pub cubic_beta: f64,
    /// CUBIC fast convergence (RFC 9438 §4.7). Default true.
    pub cubic_fast_convergence: bool,
    /// CUBIC Reno-friendly region (RFC 9438 §4.3). Default true.
    pub cubic_tcp_friendly: bool,
    /// RTO formula. Default RFC 6298.
    pub rto_mode: RtoMode,
    /// Lower bound on the RTO. Default 1 ms (LPF, REFLEX, RESQ; RFC 6298 says 1 s, which is
    /// absurd inside a datacenter).
    pub rto_min: Time,
    /// Upper bound on the (backed-off) RTO. Default 60 s (RFC 6298 (2.5), ns-3).
    pub rto_max: Time,
    /// RTO before the first RTT sample. Default 1 s (RFC 6298 (2.1)); simulator scenarios
    /// normally override this with a datacenter-scale value.
    pub rto_init: Time,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3). Default 1 µs (a µs-resolution timer).
    pub clock_granularity: Time,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2). Default false: ACK every segment,
    /// as PIAS ns-2 (`ackRatio=1`) and DCTCP-family simulations do.
    pub delayed_ack: bool,
    /// With delayed ACKs, ACK every Nth in-order segment. Default 2 (RFC 5681 §4.2).
    pub delack_count: u32,
    /// With delayed ACKs, the ACK timer. Default 1 ms (REFLEX); ns-3 uses 200 ms and RFC 5681
    /// allows up to 500 ms.
    pub delack_timeout: Time,
    /// RFC 7323 timestamps: RTT sampled from the echoed TSval on every ACK that advances
    /// `snd_una` (and from retransmissions, which Karn's rule otherwise excludes). Default
    /// true. Header bytes are the simulator's business.
    pub timestamps: bool,
    /// LEDBAT TARGET queuing delay (RFC 6817 §2.4.2; the RFC caps it at 100 ms). Default
    /// 3.2 ms (LPF §4, Fig. 10: the priority-induced delay of one 4 MB gradient update).
    pub ledbat_target: Time,
    /// LEDBAT GAIN (RFC 6817 §2.4.2: "GAIN MUST be set to 1 or less"). Default 1.0.
    pub ledbat_gain: f64,
    /// LEDBAT base-delay window. `None` (default): minimum one-way delay over the flow's
    /// lifetime — datacenter flows live far less than RFC 6817's BASE_HISTORY of 10
    /// one-minute buckets, so the lifetime minimum is what the RFC's filter would give.
    /// `Some(w)`: RFC 6817 §2.4.2 `update_base_delay` with BASE_HISTORY = 10 buckets of
    /// w/10 each (a sliding window of ≈ w), for long flows whose path may change.
    pub ledbat_base_window: Option<Time>,
    /// TCP-LP δ: early congestion indication when the smoothed one-way delay exceeds
    /// d_min + δ·(d_max − d_min). Default 0.15 (TCP-LP paper §III-B; Linux tcp_lp).
    pub tcplp_delta: f64,
    /// TCP-LP EWMA gain γ of the smoothed one-way delay. Default 1/8 (TCP-LP paper
    /// §III-B; Linux tcp_lp's `sowd` is the same 1/8 EWMA).
    pub tcplp_gamma: f64,
    /// TCP-LP inference timeout itt as a multiple of the smoothed RTT. Default 3.0 (TCP-LP
    /// paper §III-C; Linux tcp_lp: 3 × the latest inference delay).
    pub tcplp_itt_rtts: f64,
    /// TCP-LP: at most one ECI reaction per window, and sowd restarted from the first sample
    /// of post-reaction data (`cc::tcp_lp` module docs). `false` reacts to every ECI sample
    /// as TCP-LP §III-C's rule reads literally: ACKs of data sent before a halving, whose
    /// delays the halving has not yet shortened, count as the "second ECI inside itt" and
    /// collapse the window to 1 MSS. Default true.
    pub tcplp_gate: bool,

    // ---- behaviours that real stacks run (docs/tcp.md lists them per profile) ----
    /// Initial ssthresh in bytes; `None` = "arbitrarily high" (RFC 5681 §3.1).
    pub init_ssthresh: Option<u64>,
    /// Slow-start growth per ACK. Default RFC 3465 ABC with L = 2.
    pub ss_increase: SlowStartIncrease,
    /// What a Reno-family loss reduction halves. Default FlightSize (RFC 5681).
    pub ssthresh_basis: SsthreshBasis,
    /// Leaving slow start before the first loss. Default off.
    pub hystart: HyStartMode,
    /// HyStart runs only once cwnd ≥ this many segments (Linux `hystart_low_window` 16;
    /// RFC 9406 leaves it open, we use the same bound). Default 16.
    pub hystart_low_window: u32,
    /// Linux ACK-train: ACKs closer than this belong to one train (`hystart_ack_delta_us`,
    /// 2 ms). Default 2 ms.
    pub hystart_ack_delta: Time,
    /// Lower and upper clamp of the delay-increase threshold (Linux HYSTART_DELAY_MIN/MAX
    /// and RFC 9406 MIN_RTT_THRESH/MAX_RTT_THRESH: 4 ms and 16 ms).
    pub hystart_delay_min: Time,
    pub hystart_delay_max: Time,
    /// RTT samples per round before the delay test (HYSTART_MIN_SAMPLES, N_RTT_SAMPLE: 8).
    pub hystart_min_samples: u32,
    /// RFC 6937 Proportional Rate Reduction during fast recovery (SSRB variant, as Linux
    /// `tcp_cwnd_reduction`). Default off (RFC 6675 / RFC 6582 recovery).
    pub prr: bool,
    /// RFC 8985 RACK time-based loss detection (needs `sack`). Default off.
    pub rack: bool,
    /// RFC 8985 §7 tail-loss probe. Default off.
    pub tlp: bool,
    /// PTO = max(2·SRTT, pto_min) (RFC 8985 §7.2 with a configurable floor; TLT uses
    /// 10 µs). Default 10 µs.
    pub pto_min: Time,
    /// Added to the PTO when a single segment is in flight (RFC 8985 §7.2 WCDelAckT, 200 ms;
    /// Linux adds its RTO_min). `None` = `rto_min`.
    pub tlp_max_ack_delay: Option<Time>,
    /// Added to the PTO when more than one segment is in flight. RFC 8985 adds nothing
    /// (default 0); Linux `tcp_schedule_loss_probe` adds `TCP_TIMEOUT_MIN` (two jiffies).
    pub pto_slack: Time,
    /// RFC 5682 F-RTO (SACK-enhanced, §3): detect a spurious timeout by sending new data
    /// after it. Default off.
    pub frto: bool,
    /// Undo a window reduction that proves spurious: timestamps (RFC 3522 Eifel detection,
    /// Linux `tcp_packet_delayed`) and D-SACK (RFC 3708), with the RFC 4015 response
    /// (cwnd and ssthresh restored, Linux `tcp_undo_cwnd_reduction`). Default off.
    pub undo: bool,
    /// The receiver reports duplicate segments with a D-SACK block (RFC 2883). Default off.
    pub dsack: bool,
    /// Linux quick-ACK mode at the receiver: the first `quickack_segs` segments, and
    /// those after an idle gap longer than `quickack_idle`, are ACKed at once even with
    /// delayed ACKs (`tcp_enter_quickack_mode`, TCP_MAX_QUICKACKS = 16). Default off.
    pub quickack: bool,
    pub quickack_segs: u32,
    /// `None` = `rto_min` (Linux compares the gap with the receiver's RTO).
    pub quickack_idle: Option<Time>,
    /// Timer granularity: RTO, probe, reordering and delayed-ACK timers fire on the next
    /// multiple of this tick (Linux jiffies: 4 ms at HZ = 250). 0 = exact. Default 0.
    pub timer_tick: Time,
    /// SYN retransmission timeout (doubled per retry); `None` = `rto_init`.
    pub syn_rto: Option<Time>,
    /// Seed the RTT estimator with the SYN / SYN-ACK round trip (never from a retransmitted
    /// SYN, RFC 6298 §3 Karn). Default off.
    pub syn_rtt_sample: bool,
    /// Floor of the DCTCP window after an ECN cut, in segments (Linux: 2; ns-3 TcpDctcp: 1).
    pub dctcp_min_cwnd: u32,
    /// Pure ACKs grow on the wire with the SACK blocks they carry (RFC 2018 §3: 2 + 8 per
    /// block, padded to 4 bytes). Default off (fixed ACK size).
    pub sack_option_bytes: bool,
    /// TLT for window-based TCP (Lim et al. §5.1, Alg. 1, Appendix A): one important
    /// packet in flight, loss detection between important packets, important ACK-clocking
    /// with this payload rule. `None` (default) = off.
    pub tlt: Option<TltClocking>,
}

/// A named set of defaults for the behaviour keys (`profile` in a scenario); explicit keys
/// override it. docs/tcp.md tabulates each profile with its sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Profile {
    /// The RFC baseline dcnsim always ran (so existing results do not move).
    #[default]
    Rfc,
    /// Linux 6.x as shipped (CUBIC + HyStart, PRR, RACK-TLP, F-RTO and undo, quick-ACK,
    /// jiffy timers at HZ = 250).
    Linux,
    /// ns-3 `TcpSocketBase` defaults (per-ACK slow start, ssthresh from bytes in flight,
    /// PRR, RFC 6298 RTO with 1 ms clock granularity).
    Ns3,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            init_cwnd_pkts: 10,
            rwnd_bytes: 1_000_000,
            sack: true,
            dupack_thresh: 3,
            cc: CcKind::Cubic,
            ecn: false,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            d2tcp_d_min: 0.5,
            d2tcp_d_max: 2.0,
            l2dct_w_min: 0.125,
            l2dct_w_max: 2.5,
            l2dct_size_lo: 204_800,
            l2dct_size_hi: 1_048_576,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            cubic_fast_convergence: true,
            cubic_tcp_friendly: true,
            rto_mode: RtoMode::Rfc6298,
            rto_min: MS,
            rto_max: 60 * SEC,
            rto_init: SEC,
            clock_granularity: US,
            delayed_ack: false,
            delack_count: 2,
            delack_timeout: MS,
            timestamps: true,
            ledbat_target: 3200 * US,
            ledbat_gain: 1.0,
            ledbat_base_window: None,
            tcplp_delta: 0.15,
            tcplp_gamma: 1.0 / 8.0,
            tcplp_itt_rtts: 3.0,
            tcplp_gate: true,
            init_ssthresh: None,
            ss_increase: SlowStartIncrease::Abc { l: 2 },
            ssthresh_basis: SsthreshBasis::FlightSize,
            hystart: HyStartMode::Off,
            hystart_low_window: 16,
            hystart_ack_delta: 2 * MS,
            hystart_delay_min: 4 * MS,
            hystart_delay_max: 16 * MS,
            hystart_min_samples: 8,
            prr: false,
            rack: false,
            tlp: false,
            pto_min: 10 * US,
            tlp_max_ack_delay: Some(200 * MS),
            pto_slack: 0,
            frto: false,
            undo: false,
            dsack: false,
            quickack: false,
            quickack_segs: 16,
            quickack_idle: None,
            timer_tick: 0,
            syn_rto: None,
            syn_rtt_sample: false,
            dctcp_min_cwnd: 2,
            sack_option_bytes: false,
            tlt: None,
        }
    }
}

impl TcpConfig {
    /// The defaults of a profile for congestion control `cc`. Only behaviour keys differ
    /// between profiles; the congestion control, MSS and windows are the scenario's.
    /// Sources per key in docs/tcp.md.
    pub fn profile(p: Profile, cc: CcKind) -> TcpConfig {
        let base = TcpConfig {
            cc,
            ecn: cc.is_dctcp_family(),
            ..TcpConfig::default()
        };
        // Linux and ns-3 run HyStart inside CUBIC only (tcp_cubic.c, TcpCubic).
        let hystart = if cc == CcKind::Cubic {
            HyStartMode::Linux
        } else {
            HyStartMode::Off
        };
        match p {
            Profile::Rfc => base,
            Profile::Linux => TcpConfig {
                // tcp_slow_start: cwnd += acked segments, no L.
                ss_increase: SlowStartIncrease::Abc { l: 0 },
                // tcp_reno_ssthresh / DCTCP loss: max(cwnd >> 1, 2).
                ssthresh_basis: SsthreshBasis::Cwnd,
                // tcp_cubic.c: hystart = 1, HYSTART_ACK_TRAIN | HYSTART_DELAY.
                hystart,
                prr: true,               // tcp_cwnd_reduction
                rack: true,              // net.ipv4.tcp_recovery = 1
                tlp: true,               // net.ipv4.tcp_early_retrans = 3
                pto_min: 2 * MS,         // TCP_TIMEOUT_MIN_US
                tlp_max_ack_delay: None, // + tcp_rto_min when packets_out == 1
                // tcp_schedule_loss_probe: timeout = usecs_to_jiffies(2·srtt) +
                // TCP_TIMEOUT_MIN (2 jiffies) when packets_out > 1: added, not a floor.
                pto_slack: 8 * MS,
                frto: true,               // net.ipv4.tcp_frto = 2
                undo: true,               // tcp_try_undo_* (timestamps, D-SACK)
                dsack: true,              // net.ipv4.tcp_dsack = 1
                quickack: true,           // tcp_enter_quickack_mode
                delayed_ack: true,        // tcp_send_delayed_ack
                delack_timeout: 40 * MS,  // TCP_DELACK_MIN
                rto_mode: RtoMode::Linux, // tcp_rtt_estimator / __tcp_set_rto
                rto_min: 200 * MS,        // TCP_RTO_MIN
                rto_max: 120 * SEC,       // TCP_RTO_MAX
                rto_init: SEC,            // TCP_TIMEOUT_INIT
                timer_tick: 4 * MS,       // one jiffy at CONFIG_HZ = 250
                syn_rto: Some(SEC),       // TCP_TIMEOUT_INIT
                syn_rtt_sample: true,     // tcp_synack_rtt_meas
                dctcp_min_cwnd: 2,        // dctcp_ssthresh: max(.., 2U)
                sack_option_bytes: true,  // tcp_options_write: SACK blocks
                ..base
            },
            Profile::Ns3 => TcpConfig {
                ss_increase: SlowStartIncrease::PerAck, // TcpNewReno::SlowStart
                ssthresh_basis: SsthreshBasis::Pipe,    // GetSsThresh(tcb, BytesInFlight())
                // TcpCubic: m_hystart = true, ACK train and delay detection.
                hystart,
                prr: true,                  // TcpPrrRecovery (ns-3 default recovery)
                delayed_ack: true,          // DelAckCount = 2
                delack_timeout: 200 * MS,   // DelAckTimeout
                rto_mode: RtoMode::Rfc6298, // RttMeanDeviation
                clock_granularity: MS,      // ClockGranularity
                rto_min: SEC,               // MinRto
                rto_init: SEC,              // InitialRto... RttEstimator InitialEstimation
                syn_rto: Some(3 * SEC),     // ConnTimeout
                dctcp_min_cwnd: 1,          // TcpDctcp::ReduceCwnd has no floor
                sack_option_bytes: true,    // TcpOptionSack::GetSerializedSize
                ..base
            },
        }
    }
}

impl TcpConfig {
    /// Checks every field; the error names the offending key and what is expected.
    pub fn validate(&self) -> Result<(), String> {
        fn unit_open(x: f64) -> bool {
            x.is_finite() && x > 0.0 && x < 1.0
        }
        if self.mss == 0 {
            return Err("mss: must be > 0".into());
        }
        if self.init_cwnd_pkts == 0 {
            return Err("init_cwnd_pkts: must be >= 1".into());
        }
        if self.rwnd_bytes < self.mss as u64 {
            return Err(format!("rwnd_bytes: must be >= mss ({})", self.mss));
        }
        if self.dupack_thresh == 0 {
            return Err("dupack_thresh: must be >= 1".into());
        }
        if !(self.dctcp_g.is_finite() && self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return Err("dctcp_g: must be in (0,1]".into());
        }
        if !(self.dctcp_alpha_init.is_finite() && (0.0..=1.0).contains(&self.dctcp_alpha_init)) {
            return Err("dctcp_alpha_init: must be in [0,1]".into());
        }
        if !(self.cubic_c.is_finite() && self.cubic_c > 0.0) {
            return Err("cubic_c: must be > 0".into());
        }
        if !unit_open(self.cubic_beta) {
            return Err("cubic_beta: must be in (0,1)".into());
        }
        if self.rto_min == 0 {
            return Err("rto_min: must be > 0".into());
        }
        if self.rto_max < self.rto_min {
            return Err("rto_max: must be >= rto_min".into());
        }
        if self.rto_init == 0 {
            return Err("rto_init: must be > 0".into());
        }
        if let RtoMode::Static(t) = self.rto_mode {
            if t == 0 {
                return Err("rto_mode: Static RTO must be > 0".into());
            }
        }
        if self.delack_count == 0 {
            return Err("delack_count: must be >= 1".into());
        }
        if self.delayed_ack && self.delack_timeout == 0 {
            return Err("delack_timeout: must be > 0 when delayed_ack is on".into());
        }
        if self.ledbat_target == 0 {
            return Err("ledbat_target: must be > 0".into());
        }
        if !(self.ledbat_gain.is_finite() && self.ledbat_gain > 0.0 && self.ledbat_gain <= 1.0) {
            // RFC 6817 §2.4.2: "GAIN MUST be set to 1 or less".
            return Err("ledbat_gain: must be in (0,1]".into());
        }
        if self.ledbat_base_window == Some(0) {
            return Err("ledbat_base_window: must be > 0 (or unset for the flow lifetime)".into());
        }
        if !unit_open(self.tcplp_delta) {
            return Err("tcplp_delta: must be in (0,1)".into());
        }
        if !(self.tcplp_gamma.is_finite() && self.tcplp_gamma > 0.0 && self.tcplp_gamma <= 1.0) {
            return Err("tcplp_gamma: must be in (0,1]".into());
        }
        if !(self.tcplp_itt_rtts.is_finite() && self.tcplp_itt_rtts >= 1.0) {
            return Err("tcplp_itt_rtts: must be >= 1".into());
        }
        if self.init_ssthresh.is_some_and(|b| b < 2 * self.mss as u64) {
            return Err("init_ssthresh: must be >= 2 segments".into());
        }
        if self.hystart_low_window == 0 {
            return Err("hystart_low_window: must be >= 1".into());
        }
        if self.hystart_delay_max < self.hystart_delay_min {
            return Err("hystart_delay_max: must be >= hystart_delay_min".into());
        }
        if self.hystart_min_samples == 0 {
            return Err("hystart_min_samples: must be >= 1".into());
        }
        if self.rack && !self.sack {
            return Err("rack: needs sack = true (RFC 8985 §2)".into());
        }
        if self.tlp && !self.sack {
            return Err(
                "tlp: needs sack = true (RFC 8985 §7: the probe's outcome is read from SACK)"
                    .into(),
            );
        }
        if self.pto_min == 0 {
            return Err("pto_min: must be > 0".into());
        }
        if self.quickack_segs == 0 {
            return Err("quickack_segs: must be >= 1".into());
        }
        if self.quickack_idle == Some(0) {
            return Err("quickack_idle: must be > 0".into());
        }
        if self.syn_rto == Some(0) {
            return Err("syn_rto: must be > 0".into());
        }
        if self.dctcp_min_cwnd == 0 {
            return Err("dctcp_min_cwnd: must be >= 1".into());
        }
        if self.cc.is_dctcp_family() && !self.ecn {
            return Err(format!("ecn: must be true when cc = {:?}", self.cc));
        }
        if !(self.d2tcp_d_min.is_finite() && self.d2tcp_d_min > 0.0) {
            return Err("d2tcp_d_min: must be > 0".into());
        }
        if !(self.d2tcp_d_max.is_finite() && self.d2tcp_d_max >= self.d2tcp_d_min) {
            return Err("d2tcp_d_max: must be >= d2tcp_d_min".into());
        }
        if !(self.l2dct_w_min.is_finite() && self.l2dct_w_min > 0.0) {
            return Err("l2dct_w_min: must be > 0".into());
        }
        if !(self.l2dct_w_max.is_finite() && self.l2dct_w_max >= self.l2dct_w_min) {
            return Err("l2dct_w_max: must be >= l2dct_w_min".into());
        }
        if self.l2dct_size_hi <= self.l2dct_size_lo {
            return Err("l2dct_size_hi: must be > l2dct_size_lo".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn defaults_validate_and_errors_name_the_key() {
        assert!(TcpConfig::default().validate().is_ok());
        let bad = |f: &dyn Fn(&mut TcpConfig)| {
            let mut c = TcpConfig::default();
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert_eq!(bad(&|c| c.mss = 0), "mss: must be > 0");
        assert_eq!(bad(&|c| c.cubic_beta = 1.0), "cubic_beta: must be in (0,1)");
        assert!(bad(&|c| c.dupack_thresh = 0).starts_with("dupack_thresh"));
        assert!(bad(&|c| c.cc = CcKind::Dctcp).starts_with("ecn"));
        assert!(bad(&|c| c.rto_max = 0).starts_with("rto_max"));
        assert!(bad(&|c| c.rwnd_bytes = 10).starts_with("rwnd_bytes"));
        assert!(bad(&|c| c.dctcp_g = 0.0).starts_with("dctcp_g"));
        assert!(bad(&|c| c.rto_mode = RtoMode::Static(0)).starts_with("rto_mode"));
        assert_eq!(bad(&|c| c.ledbat_target = 0), "ledbat_target: must be > 0");
        assert!(bad(&|c| c.ledbat_gain = 1.5).starts_with("ledbat_gain:"));
        assert!(bad(&|c| c.ledbat_base_window = Some(0)).starts_with("ledbat_base_window:"));
        assert!(bad(&|c| c.tcplp_delta = 0.0).starts_with("tcplp_delta:"));
        assert!(bad(&|c| c.tcplp_gamma = f64::NAN).starts_with("tcplp_gamma:"));
        assert!(bad(&|c| c.tcplp_itt_rtts = 0.5).starts_with("tcplp_itt_rtts:"));
        assert!(bad(&|c| c.cc = CcKind::D2tcp).starts_with("ecn"));
        assert!(bad(&|c| c.d2tcp_d_max = 0.1).starts_with("d2tcp_d_max:"));
        assert!(bad(&|c| c.l2dct_w_min = 0.0).starts_with("l2dct_w_min:"));
        assert!(bad(&|c| c.l2dct_size_hi = 1).starts_with("l2dct_size_hi:"));
    }
}
