"""What was found about the LPF findings that do not hold (:data:`INVESTIGATED`, with the
ablations behind it) and :func:`_noted`, which appends it to a missed finding's note.
"""

from __future__ import annotations

from collections.abc import Callable

from ..framework import (
    HOLDS,
    Ctx,
    Finding,
)

# ---------------------------------------------------------------------------------------------
# what was found about the misses (issue 11): appended to a finding's note when it does not
# hold. "Full scale" numbers come from the cached runs of the full reproductions of 2026-11-25
# (before the Near-Opt receive-window fix) and 2026-11-26 (after it: Figs 2a, 3a, 3c); each
# ablation names what changed, its scale and seeds (tools/ablations/lowprio.py re-runs those
# of Figs 2a, 3a, 3c, 4b, 7, 8, 9, 10 and 11). A cause is stated as such only where a
# one-change re-run moved the number to the paper's side with its interval.

INVESTIGATED: dict[str, str] = {
    "LPF-Fig2a": (
        "Ablations (tools/ablations/lowprio.py fig2a; full scale, 6 s, seeds 1-3; p80 "
        "retransmission rate PriorityQueue / FairShare): preset 0.117 [0.091, 0.14] / 0.0641 "
        "[0.0425, 0.0846]; FairShare's retransmissions are all real losses (0% spurious) of "
        "the shared 192 KB FIFO under the 8:1 incast. The 9-node cluster looks like the "
        "paper's testbed (9 servers, §3.4: the simulation's settings except RTO_min 5 ms, "
        "Linux hosts), and no one of its differences makes FairShare negligible: RTO_min 5 ms"
        " 0.109 [0.0791, 0.137] / 0.048 [0.0373, 0.0761]; the Linux TCP profile (LPF's keys "
        "kept) 0.0859 [0.0732, 0.0954] / 0.0378 [0.0314, 0.0442]; a 4 MB FairShare FIFO (no "
        "losses) FairShare 0.0315 [0.0291, 0.035], all spurious (the incast queues about 3.2 "
        "ms ahead of the storage packets, beyond RTO_min 1 ms). Two changes together, RTO_min"
        " 5 ms and a 4 MB FairShare FIFO, give the paper's picture: 0.109 [0.0791, 0.137] / 0"
        " [0, 0]. Hypothesis, not confirmed by a one-change run: the paper's FairShare ran "
        "with the testbed's RTO_min of 5 ms on a switch buffer deep enough to hold the "
        "incast; the paper states the switch was configured like the simulation (192 KB per "
        "port) and gives no buffer for this figure, so the preset keeps 192 KB."
    ),
    "LPF-Fig3a": (
        "In short: the gap is the 64 KB low-priority queue's losses, confirmed by one change "
        "at every size (fig3a-lossless, at the end of this note: with a low queue that drops "
        "nothing TCP is within 2x of Near-Opt in mean and p99); the high class is what fills "
        "the port (fig3a-nohigh: it doubles the 1 MB mean's gap) and repeated timeouts are how "
        "the losses cost (fig3a-tail). In detail: "
        "Near-Opt's backlog grows (full scale, 5 MB, seeds 1-3): for flows starting in the "
        "first 0.25 s it is 1.5x faster than TCP, then its FCTs grow with start time (0.11 s "
        "-> 0.38 s at 1.5-2 s; TCP stays at 0.16-0.26 s) and its active low-priority flows "
        "grow from 293 to 1,114 (TCP 371 -> 795), while no host is offered more than 69%. "
        "Replaying the active flows at 0.3 / 0.8 / 1.5 / 2.2 s through the paper's rate rule "
        "(a link's available rate / its flow count, then the minimum over the path) allocates "
        "74-84% of the max-min fair rates: a flow held lower by its other link leaves its "
        "share of this link unused. Ablation (DAS 5 MB, 1.0 s, seed 1, with both Near-Opt "
        "fixes of LPF-Fig3c; only nearopt_share changed): equal split TCP / Near-Opt mean "
        "1.67, p99 2.10, falling with start time (1.82 -> 1.43: the backlog builds); max-min "
        "mean 3.64, p99 3.67, no such fall (Near-Opt mean FCT 91 -> 42 ms). The equal split "
        "is what lets Near-Opt's backlog build; the reproduction keeps it (the printed rule, "
        "spec §4.12; preamble): with the max-min share TCP is more than 2x slower than the "
        "baseline. Not the cause: the order of "
        "service of a fair "
        "transport (ablation, reduced 0.625 s, seed 1: TCP / Near-Opt mean 1.09 with uniform, "
        "1.24 with fixed 5 MB, 1.04 with exponential sizes: fair-sharing order would rank "
        "them the other way). The reduced scale is too short for the backlog to build. "
        "This concerns the 5 MB point only, whose mean now holds: with both Near-Opt "
        "fixes of LPF-Fig3c (full "
        "scale, 2026-11-26, seeds 1-3) TCP / Near-Opt is mean 1.68 / 3.62 / 1.85 and p99 "
        "2.74 / 6.59 / 2.70 at 128 KB / 1 MB / 5 MB (before the fixes 1.40 / 1.69 / 0.81 "
        "and 2.44 / 3.23 / 1.34): the fixes made the baseline faster at every size. "
        "The 1 MB point (tools/ablations/lowprio.py fig3a-*: full scale, DAS mean 1 MB, "
        "1.118 s, seeds 1-3; each arm replays the preset TCP run's flows with one change of "
        "the low-priority TCP, the high class on the preset's TCP, against the same flows "
        "under Near-Opt; the replay with no change reproduces mean 3.62 [3.46, 3.74], p99 "
        "6.59 [5.98, 7.19] exactly). It is TCP that is slow there, not Near-Opt that is "
        "fast: mean slowdown (seed 1) Near-Opt 12.9 / 26.5 / 27.9, TCP 23 / 103 / 56 at "
        "128 KB / 1 MB / 5 MB; TCP's low flows take 16.1 timeouts each (9.4 spurious; 6 per "
        "MB at 128 KB and 5 MB) and the low queues drop 6% of their packets. Within the run "
        "the ratio is flat in the flow's own size (4.2 at 0.2 MB, 3.6 at 1.8 MB) and in its "
        "primary's FCT (3.3-4.0). Confirmed for the mean, one change: without the "
        "high-priority flows (fig3a-nohigh, both runs) TCP / Near-Opt is mean 1.82 [1.8, "
        "1.84], p99 2.54 [2.42, 2.65] (0.45 timeouts per flow): the interplay with the "
        "high class doubles the mean gap, against the paper's 'TCP is largely unaffected'; "
        "the p99 stays above 2 even without it. That interplay is what sets 1 MB apart "
        "(same ablation, --das-mean): without the high class the mean is 2.05 [2.04, 2.05] "
        "/ 1.82 / 1.37 [1.36, 1.39] and the p99 2.34 [2.31, 2.38] / 2.54 / 1.74 [1.68, 1.81] "
        "at 128 KB / 1 MB / 5 MB, so the high class multiplies the mean by 0.82 / 1.99 / "
        "1.35. Toward the paper but not inside its band: "
        "low queue 64 -> 192 KB (fig3a-buffer, both runs; the paper's 64 KB is kept) mean "
        "2.17 [2.07, 2.26], p99 3.14 [2.91, 3.46] (timeouts 8.8 per flow); RTO back-off "
        "capped at 10 ms (fig3a-backoff) mean 3.3 [3.19, 3.4], p99 4.14 [3.83, 4.48]. "
        "Refuted (the gap grows or stays): RTO_min 5 ms (fig3a-rto) mean 4.54 [4.43, 4.65], "
        "p99 8.88 [8.45, 9.38] (spurious timeouts 9.4 -> 2.3 per flow, real losses wait "
        "5 ms); F-RTO + undo + D-SACK (fig3a-spurious) 4.05 [3.83, 4.25], 12.4 [10.8, 13.2]; "
        "the ns-3 profile (fig3a-profile, LPF's keys kept) 4.05 [3.95, 4.16], 8 [7.62, "
        "8.43]; the Linux profile 3.32 [3.19, 3.43], 6.55 [6.17, 7.04]; an initial window "
        "of 10 instead of LPF's 2 (fig3a-iw: a start as fast as the baseline's) mean 3.99 "
        "[3.81, 4.13], p99 7.7 [6.84, 8.9], and likewise at the other sizes (p99 4.24 [3.88, "
        "4.43] at 128 KB, 2.83 [2.57, 3.02] at 5 MB): slow start is not what TCP loses. "
        "What sets the p99 at every size (fig3a-tail, a breakdown of the preset's full-scale "
        "runs, not a re-run): TCP's flows at or above its p99 take 6.7 / 31.2 / 82.3 "
        "timeouts each (2.0 / 17.0 / 52.6 spurious) at 128 KB / 1 MB / 5 MB, and TCP's p99 "
        "over the flows that took no timeout (57% / 5% / 2% of them) is 5.0 / 11.6 / 16.6 ms, "
        "below Near-Opt's p99 over all flows (7.7 / 83 / 413 ms). The back-off cap of 10 ms "
        "(fig3a-backoff) at the other sizes: p99 2.85 [2.8, 2.94] at 128 KB (preset 2.74), "
        "2.14 [1.94, 2.27] at 5 MB (preset 2.70). Cause, confirmed by one change "
        "(fig3a-lossless: the low queue 64 KB -> 100 MB in both runs, so no low-priority "
        "packet is dropped; full scale, seeds 1-3): TCP / Near-Opt mean 0.914 [0.908, 0.92] / "
        "1.46 [1.43, 1.5] / 1.56 [1.51, 1.6] and p99 1.14 [1.13, 1.16] / 1.37 [1.31, 1.44] / "
        "1.74 [1.58, 1.82] at 128 KB / 1 MB / 5 MB (preset mean 1.68 / 3.62 / 1.85, p99 2.74 "
        "/ 6.59 / 2.70), all within the paper's 2x; timeouts per low flow 0.09 / 3.61 / 17.4, "
        "all spurious (preset 0.86 / 16.1 / 30.6). So the losses of the 64 KB low queue, which "
        "the high class fills, and the timeouts that recover them set our gap; the spurious "
        "timeouts left without losses do not. The paper's simulation had the same 64 KB; why "
        "its TCP lost less there is not known."
    ),
    "LPF-Fig3c": (
        "Defect fixed (test transport::nearopt::tests::new_data_stays_inside_the_receive_window): "
        "Near-Opt ignored the receiver's 1 MB window; while one lost segment waited for its "
        "timeout it kept sending at the oracle's rate and the receiver discarded the excess. The "
        "full-scale high-load run (seed 1) resent 10.4 M packets for 2,416 drops (5% of its "
        "data); a reduced run 1.9 M of 8.6 M packets for 34 drops. Defect fixed with it (test "
        "nearopt_survives_lost_acks_at_a_full_receive_window): a window-limited flow whose ACKs "
        "were all lost waited forever, so the oracle now counts bytes the receiver holds as "
        "acknowledged at the timeout. They do not close the data-mining gap: at full scale with "
        "both fixes (2026-11-26, seeds 1-3) the high-load p99.9 DM / WS gap is 0.754 [0.638, "
        "0.976] (before 0.731) and DM's largest p99 ratio 1.26. Ablation "
        "(tools/ablations/lowprio.py fig3c-sizes on the full-scale runs, seeds 1-3): the p99.9 of "
        "the data-mining flows is set by flows of 0.72-0.95 GB (TCP 6.6-7.9 s, Near-Opt 4.2-6.1 "
        "s), long-lived and bandwidth-shared under both transports, so the DM p99.9 ratio is 1.16 "
        "[1.06, 1.37]. Over the data-mining flows of web search's sizes (<= 30 MB) it is 3.87 "
        "[2.8, 7.06] and the DM / WS gap 2.51 [1.69, 4.6]; over those <= 100 MB 2.51 [1.52, 3.33] "
        "and 1.63 [0.993, 2.35] (the paper's 1.44 inside). But removing those flows does not give "
        "the paper's gap: re-run with one change (fig3c-cap: the DM sizes conditioned on <= 100 "
        "MB, the 2% of 0.1-1 GB flows gone, load unchanged; 1.5 s, seeds 1-3, 4,193 DM flows) the "
        "DM p99.9 ratio is 1.28 [1.11, 1.36] and the DM / WS gap 0.833 [0.672, 0.991] (WS 1.54 "
        "[1.32, 1.77]): the smaller DM flows' large gap in the full runs depends on the GB flows "
        "they share links with, and the size mix alone is refuted as the cause. Refuted as well: "
        "censoring at the end of the run (only flows finished by then, what run.horizon = "
        "run.duration counts: the run before the horizon does not depend on it): gap 0.764 [0.63, "
        "0.887]; only 3% of the DM flows finish later. Refuted as well, a second reading of the "
        "normalization (fig3c-reading, the same full-scale runs): the p99.9 of the per-flow "
        "ratios (each flow's TCP FCT / its own Near-Opt FCT) gives a DM / WS gap of 2.13 [1.7, "
        "2.97] at high load, but web search's own ratio is then 10.1 / 13.7 / 11.2 at low / "
        "medium / high load, against the 'within 2x' of Fig 3b that the reproduction's ratio of "
        "p99.9s gives (1.41 / 1.58 / 1.54). Refuted as well, one change each (seeds 1-3, high "
        "load unless stated): a run that stops at its end (fig3c-horizon: 1.5 / 3 / 6 s of "
        "arrivals with run.horizon = run.duration, so a flow unfinished then is not counted, the "
        "paper's run length being unstated): gap 0.61 [0.509, 0.744] / 0.545 [0.412, 0.783] / "
        "0.588 [0.481, 0.72] (the same runs to the end: 0.698 / 0.68 / 0.676): GB flows that "
        "start early finish within 1.5 s, and censoring the rest lowers DM's ratio (0.94 at 1.5 "
        "s); the load, which the paper gives only as '> 40%' (fig3c-load, full scale; 1.5 s "
        "and 562-984 DM flows away from 50%): gap 0.658 "
        "[0.561, 0.782] at 40%, 0.754 at 50% (the preset), 0.721 [0.566, 0.787] at 60%, 0.755 "
        "[0.59, 0.92] at 70%; Near-Opt dividing a link max-min fairly instead of by the printed "
        "flow count (fig3c-share, full scale, the Near-Opt replays only): DM 1.2 [1.1, 1.44], WS "
        "1.72 [1.39, 1.98], gap 0.696 [0.597, 0.957]; the high class (fig3c-nohigh, full scale, "
        "both runs replayed without the < 1 MB flows, which carry 5% of web search's bytes and "
        "0.2% of data mining's): DM 1.14 [1.07, 1.35], WS 1.51 [1.21, 1.71], gap 0.757 [0.659, "
        "0.99], so both gaps arise among the low-priority flows themselves; the low queue's "
        "losses (fig3c-lossless, full scale, both runs replayed with the low queue 64 KB -> "
        "100 MB, so no low-priority packet is dropped; the change that closes Fig 3a's gap): "
        "DM 0.865 [0.813, 0.99], WS 1.21 [1.07, 1.33], gap 0.715 [0.624, 0.871], so losses "
        "add to both workloads' gaps and not to data mining's more. Not explained: no "
        "single change tried lifts the gap above 1. A quarter of the data-mining low-priority "
        "flows are 0.1-1 GB (seed 1 at full scale: 23% of 1,969; 2% of all its flows, 8.6% "
        "being >= 1 MB), so a p99.9 that counts them is set by a bandwidth-bound GB flow."
    ),
    "LPF-Fig4a": (
        "With five seeds this was inconclusive (per seed at 70%, full scale: p99 ratio "
        "3.48, 2.80, 3.76, 4.01, 4.00). With ten the 70% p99 ratio was 3.39 [2.98, 3.87]; "
        "with forty (full scale since 2026-11-26) it is 3.54 [3.35, 3.67], below the "
        "band's 4, and at 80% it is 29.6 [27.2, 32.4], above its 12: the magnitude is set "
        "by the load, and the paper's '> 4x' at an unstated 'high' load lies between our "
        "70% (the preset, chosen before the runs) and 80%. Within 2x at 15% and 30% holds."
    ),
    "LPF-Fig4b": (
        "Forty seeds (full scale) leave it inconclusive: the medium p99 is in the band (3.91 "
        "[3.37, 4.4]), but medium / worst other is 0.903 [0.636, 1.26], straddling 1 (ten seeds: "
        "3.96 [3.05, 4.72] and 1.05 [0.759, 1.57]). The worst other is the long flows' p99, 4.33 "
        "[3.09, 6.81]: about 58 long flows per seed, so a seed's long p99 is its top flow. Which "
        "class suffers most depends on the load (ablation tools/ablations/lowprio.py fig4b-load: "
        "Fig 4a's full-scale runs at the other loads, 40 seeds, only the high-priority load "
        "changed; TCP / Near-Opt p99 small / medium / long): 50% 1.25 / 2.26 / 2.13, medium / "
        "worst other 1.06 [0.943, 1.25]; 60% 1.32 / 3.06 / 2.55, 1.2 [0.996, 1.39]; 70% (the "
        "preset) 2.77 / 3.91 / 4.33; 80% 304 / 42.7 / 15.1, 0.14 [0.104, 0.152]. The paper's "
        "order (medium worst, up to 4.9x) is what our 50-60% give (at 60% the interval's lower "
        "end touches 1); as the high class nears the link, the long and then the small flows fall "
        "behind."
    ),
    "LPF-Fig4c": (
        "Ablation (co-location 70%, 1 s, seeds 1-5; TCP's rto_max 60 s -> 10 ms, an "
        "ablation, not a setting we propose): TCP / Near-Opt p99 at 12 MB 6.19 -> 3.21, at "
        "24 MB 12.6 [6.59, 25.8] -> 2.49 [2.35, 2.88], so 24 / 12 MB becomes 0.78 (the "
        "paper's fall). With RFC 6298 backoff, a flow whose retransmissions keep landing in "
        "19 ms on periods backs its RTO off to 0.25-1 s (TCP p99 250 ms; 49 ms capped): that "
        "tail, not the on period, sets our 24 MB gap. Full scale per seed at 24 MB: 25.4, "
        "25.6, 24.9, 11.8, 12.8 (one doubling more or less)."
    ),
    "LPF-Fig7": (
        "Ablation (co-location 70%, 1 s, seeds 1-5): the other reading of the paper's "
        "partitions (one 192 KB port: both queues may use all of it in the 192 KB case, "
        "24 KB per queue for both classes in the 8-queue case) gives 24 / 192 KB p99 2.40 "
        "[1.57, 2.94] against ours 2.78 [2.02, 3.62] at the same scale, so the partition "
        "reading is not the cause. Nor the TCP defaults the paper does not state: the low "
        "class on the ns-3 profile (LPF's own keys kept: Cubic, SACK, IW 2, RTO_min 1 ms; "
        "ns-3's delayed ACKs, per-ACK slow start, HyStart, PRR) gives p99 3.13 [2.47, 4.76], "
        "mean 3.31 [2.87, 3.78] (ours 1.72); the audit found no defect in the per-queue "
        "limits (the 24 KB tail is 31 ms in both readings). Cause: the magnitude is set by "
        "the load (ablation, the same scale and seeds, only the co-location high-priority load "
        "changed; the paper says only 'high load'): 24 / 192 KB p99 1.75 [1.35, 2.48] at "
        "60%, 2.78 [2.02, 3.62] at 70% (ours), 3.71 [2.84, 4.71] at 75%, 31.8 [25.3, 46] at "
        "80% (mean 1.26, 1.72, 2.50, 21.7): the ratio grows steeply as the high class nears "
        "the link, and the paper's 5.7x lies between our 75% and 80%. The reproduction keeps "
        "70% (the load chosen for every co-location figure, see LPF-Fig4a)."
    ),
    "LPF-Fig8": (
        "Forty seeds (full scale) decide it: p99 / p99 at 1 ms is 1.12 [1.05, 1.21] at 500 us, "
        "1.14 [1.08, 1.22] at 5 ms and 1.24 [1.16, 1.36] at 10 ms. Every arm is slower than 1 ms, "
        "as the paper says, but the 500 us and 5 ms arms by less than the 'severely' the band "
        "asks (>= 1.25) and the 10 ms arm on its edge: our U is shallow. What sets each arm's p99 "
        "(full scale, all seeds): at 5 and 10 ms, small flows (median 16 and 88 KB) that lose a "
        "packet again and again, 3.4 and 3.2 real timeouts each (at 5 ms, 5 + 10 + 20 ms of "
        "back-off); at 1 ms and 500 us, large flows (median 1.2 and 1.4 MB) with 9.8 and 17.4 "
        "timeouts each (4.5 and 10.5 spurious). Cause of the shallow U (ablation "
        "tools/ablations/lowprio.py fig8-load: co-location 1 s, seeds 1-20, only the "
        "high-priority load changed; the paper says only 'high load'): the load. At 60% the U "
        "appears: p99 / p99 at 1 ms 1.24 [0.974, 1.42] (500 us), 1.73 [1.45, 1.91] (5 ms), 3.0 "
        "[2.44, 3.43] (10 ms); there the 1 ms arm's tail flows take 4.3 timeouts each (8.8 at "
        "70%). At 70% (the preset, same ablation) 1.21 [0.994, 1.51], 1.05 [0.816, 1.58], 1.37 "
        "[1.18, 1.65]; at 80% the order reverses (5 ms 0.293 [0.152, 0.308]: with RTO_min 1 ms, "
        "small flows back off to a p99 of 0.5 s). The left arm is 1.21-1.24 at 60% and 70%, its "
        "interval touching 1 (80%: 1.9 [0.51, 2]). Not the cause (ablation fig8-profile, 70%, "
        "seeds 1-5): the low class on the ns-3 TCP profile (LPF's own keys kept) gives 1.0 "
        "[0.586, 1.6], 0.976 [0.609, 1.26], 1.84 [1.11, 2.45]. The reproduction keeps 70% (the "
        "load of every co-location figure, chosen before the runs; see LPF-Fig4a)."
    ),
    "LPF-Fig9": (
        "Forty seeds (full scale) leave it inconclusive: max / min 1.25 [1.15, 1.36], the "
        "interval's lower end on the 1.15 edge (ten seeds: 1.16 [1.1, 1.28]). CUBIC without SACK "
        "is the slowest (mean 2.87 ms) and NewReno with SACK the fastest (2.30 ms). The spread "
        "depends on the load (ablation tools/ablations/lowprio.py fig9-load: co-location 1 s, "
        "seeds 1-20, only the high-priority load changed): max / min 1.08 [1.04, 1.14] at 60% "
        "(the paper's 'minimal to no impact' holds), 1.15 [1.08, 1.27] at 70% (the preset), 1.5 "
        "[1.23, 2.02] at 80%, where CUBIC with SACK is the slowest (26 ms against NewReno's 17 "
        "ms)."
    ),
    "LPF-Fig10": (
        "Cause (ablation, co-location 70%, 4 MB, 1 s, seeds 1-5): TCP-LP's reaction rule. "
        "Ours reacts to at most one early-congestion indication per window and restarts its "
        "smoothed delay after a halving (tcplp_gate, cc/tcp_lp.rs). With tcplp_gate = false "
        "(every indication reacts, TCP-LP section III-C read literally: ACKs of data sent "
        "before a halving still carry the old backlog's delay, count as a second indication "
        "inside itt and collapse the window to 1 MSS), TCP-LP / TCP is mean 2.72 [2.23, 3.22] "
        "and p99 6.30 [4.02, 7.90], the paper's 2.4x and 6.67x (ours 1.61 / 2.78). The "
        "reproduction keeps the gate (the default: without it a lone TCP-LP flow collapses "
        "after every halving). Not the cause: LEDBAT's target (same runs, only "
        "ledbat_target changed): LEDBAT / TCP mean 1.25, 1.24, 1.23, 1.26, 1.31 and p99 "
        "1.93, 1.91, 1.44, 1.41, 1.43 at 0.5, 1, 3.2, 10 and 100 ms; nor the load or update "
        "size (70% / 80% at 4 MB, 8 and 12 MB at 70%: TCP-LP 0.73-1.61 and LEDBAT "
        "1.07-1.36 of TCP's mean). RFC 6817 section 2.4.2 and TCP-LP section III checked "
        "line by line: no defect."
    ),
    "LPF-Fig11": (
        "Forty seeds (full scale) leave it inconclusive: WFQ's p99.9 reduction is 29.9 [14.7, "
        "30.6] for small flows (the band ends at 17) and 7.94 [3.85, 14.7] for medium ones (band "
        "3.2-9.8), TCP+'s medium p99 reduction 3.26 [1.71, 6.65] (band from 3.5). Ten seeds gave "
        "medium 5.21 [0.672, 16.3] and TCP+ 6.79 [0.973, 8.04]. About 270 medium flows per seed, "
        "so a seed's p99.9 is its top one or two flows: the intervals narrow slowly with seeds. "
        "WFQ does cut the low class's tail by several times, as the paper says; only the "
        "magnitudes are undecided. Ablations (tools/ablations/lowprio.py, co-location 1 s, 12 MB "
        "updates, seeds 1-20, one change each): fig11-load, only the load: WFQ's small / medium "
        "p99.9 reduction 3.85 [1.85, 5.24] / 0.997 [0.525, 3.15] at 60%, 15.2 [7.7, 15.6] / 4.33 "
        "[1.01, 9.59] at 70%, 1.96 [1.32, 1.99] / 0.984 [0.889, 1.55] at 80%: not monotone in the "
        "load, and the paper's 9x for small flows lies between our 60% and 70%; fig11-cqcn, only "
        "TCP+'s probe threshold (LPF gives none): medium p99 reduction 1.73 [0.977, 6.48], 1.79 "
        "[0.984, 6.59], 1.94 [1.16, 7.07], 2.12 [1.13, 7.79] at 5, 10 (the preset), 20 and 40 KB, "
        "and with the probe interval (also not given) 50 or 200 us instead of 100 us 1.75 [0.942, "
        "6.48] and 1.84 [1.07, 6.72]: no setting tried moves it toward the paper's 6x beyond "
        "these wide intervals."
    ),
}


#: Said after every note above: how its quoted intervals were computed.
INTERVALS_THEN = (
    "(Intervals quoted in this note from ablations were computed with each configuration's "
    "seeds and flows resampled apart, before the bootstrap paired runs of the same seeds and "
    "widened the seed-to-seed part for the number of seeds; re-running the named ablation "
    "gives today's.)"
)


def _noted(ev: Callable[[Ctx, Finding], None]) -> Callable[[Ctx, Finding], None]:
    def evaluate(c: Ctx, fd: Finding) -> None:
        ev(c, fd)
        if fd.verdict != HOLDS and fd.figure in INVESTIGATED:
            fd.note = f"{fd.note} {INVESTIGATED[fd.figure]} {INTERVALS_THEN}".strip()

    return evaluate
