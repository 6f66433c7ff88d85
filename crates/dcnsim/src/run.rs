//! The run driver: runs a built scenario to its end condition in chunks, reporting progress
//! between chunks, and collects the result tables.

use crate::scenario::build::{Built, FileReader};
use crate::scenario::{ConfigError, Scenario};
use crate::sim::results::{
    ClassSampleTable, FlowTable, PipeSampleTable, PipeTable, QueueTable, SampleTable, TraceTable,
};
use dcnsim_engine::{to_secs, Time};
use std::time::Instant;

/// Progress between chunks of events.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time_s: f64,
    /// The time the run is expected to reach (duration until it passes, then the horizon).
    pub target_s: f64,
    pub flows_done: u64,
    pub flows_total: u64,
    pub events: u64,
}

#[derive(Clone, Debug, Default)]
pub struct RunMeta {
    pub name: String,
    pub seed: u64,
    pub events: u64,
    pub packet_hops: u64,
    pub sim_time_s: f64,
    pub wall_s: f64,
    pub flows_total: u64,
    pub flows_completed: u64,
    pub flows_in_window: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub peak_packets: u64,
    pub classes: Vec<String>,
    pub warnings: Vec<String>,
    /// With `output.segment_delivery`: histogram bin edges (seconds) and counts per class
    /// (see `transport::delivery_bin`).
    pub segment_delivery: Option<(Vec<f64>, Vec<Vec<u64>>)>,
    /// How the run ended: "complete", "horizon", "max_events", "idle", "pfc_deadlock", "memory_limit"
    /// (the PFC watchdog stopped it) or "interrupted".
    pub end: String,
    /// Per class (in `classes` order): offered and carried load over the measurement
    /// window (see [`ClassLoad`]).
    pub load: Vec<ClassLoad>,
}

/// Offered vs carried load of one class over the measurement window
/// `[warmup, duration − cooldown)`.
#[derive(Clone, Debug, Default)]
pub struct ClassLoad {
    /// Bytes of the class's flows that start in the window, per second of window, in bits/s.
    pub offered_bps: f64,
    /// Payload bytes delivered to the class's receivers during the window, in bits/s.
    pub carried_bps: f64,
    /// Both as a fraction of Σ host link rates (the workload generator's default
    /// `load_basis = "host_links"` capacity).
    pub offered_load: f64,
    pub carried_load: f64,
}

pub struct RunOutput {
    pub flows: FlowTable,
    pub queues: QueueTable,
    pub samples: SampleTable,
    pub class_samples: ClassSampleTable,
    pub traces: TraceTable,
    /// The sender shim's pipes (C3 / ElasticSwitch; empty otherwise) and their
    /// per-interval samples.
    pub pipes: PipeTable,
    pub pipe_samples: PipeSampleTable,
    pub meta: RunMeta,
}

/// Events per chunk between progress callbacks.
pub const CHUNK: u64 = 250_000;

/// Runs `built` to completion. `progress` is called between chunks; returning `false`
/// interrupts the run (the partial results are returned with `end = "interrupted"`).
pub fn run_built(
    b: Built,
    name: &str,
    seed: u64,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> RunOutput {
    run_built_with(b, name, seed, progress, None)
}

/// [`run_built`], handing every flow's result row to `sink` instead of returning them
/// (`RunOutput::flows` is then empty): a streaming run hands finished flows over in batches
/// as it goes, so its memory does not grow with the number of flows.
pub fn run_built_with(
    mut b: Built,
    name: &str,
    seed: u64,
    progress: &mut dyn FnMut(&Progress) -> bool,
    sink: Option<crate::sim::flow::FlowSink>,
) -> RunOutput {
    let wall = Instant::now();
    b.sim.flows.sink = sink;
    let sim = &mut b.sim;
    let budget_total = if b.max_events == 0 {
        u64::MAX
    } else {
        b.max_events
    };
    if let Some(c) = sim.pcap.as_mut() {
        c.open();
    }
    let mut events = 0u64;
    let end;
    loop {
        let chunk = CHUNK.min(budget_total - events);
        events += sim.run(b.horizon, chunk);
        sim.retire_flows();
        if sim.finished {
            end = "complete";
            break;
        }
        // Checked once per chunk (the arena grows by at most a chunk's packets between
        // checks): the memory a run may take is bounded, not only estimated.
        if sim.arena.capacity_used() as u64 > b.max_packets {
            end = "memory_limit";
            let used = sim.arena.capacity_used() as u64;
            let (share, remedy) = if b.max_packets == crate::scenario::resources::MAX_PACKET_CAP {
                (
                    "the simulator's limit of packets alive at once",
                    "change the scenario",
                )
            } else {
                (
                    "the memory limit's share for packets",
                    "raise run.memory_limit or change the scenario",
                )
            };
            b.warnings.push(format!(
                "run.memory_limit: the run stopped at {:.3} ms holding {used} packets (about {}), \
                 {share} (a queue without a limit, such as a host NIC queue, can hold any \
                 number): {remedy}",
                to_secs(sim.now()) * 1e3,
                crate::scenario::resources::human(used * crate::scenario::resources::PACKET_BYTES),
            ));
            break;
        }
        if events >= budget_total {
            end = "max_events";
            break;
        }
        match sim.next_time() {
            None => {
                end = if sim.pfc.as_ref().is_some_and(|p| p.deadlock.is_some()) {
                    "pfc_deadlock"
                } else {
                    "idle"
                };
                break;
            }
            Some(t) if t > b.horizon => {
                end = "horizon";
                break;
            }
            _ => {}
        }
        let now = sim.now();
        let p = Progress {
            sim_time_s: to_secs(now),
            target_s: to_secs(if now < b.duration {
                b.duration
            } else {
                b.horizon
            }),
            flows_done: sim.flows.completed as u64,
            flows_total: sim.flows.len() as u64,
            events,
        };
        if !progress(&p) {
            end = "interrupted";
            break;
        }
    }
    if let Some(c) = b.sim.pcap.as_mut() {
        let notes = c.finish();
        b.sim.notes.extend(notes);
    }
    b.sim.drain_feed();
    let mut flows = b.sim.take_flow_table();
    if let Some(mut sink) = b.sim.flows.sink.take() {
        sink(std::mem::take(&mut flows));
    }
    let sim = &b.sim;
    let mut warnings = b.warnings.clone();
    warnings.extend(sim.notes.iter().cloned());
    let load = class_load(sim, b.class_names.len());
    let unfinished = sim.flows.len() as u64 - sim.flows.completed as u64;
    if unfinished > 0 && (end == "horizon" || end == "max_events") {
        let key = if end == "horizon" {
            "run.horizon"
        } else {
            "run.max_events"
        };
        warnings.push(format!(
            "{key}: the run stopped at the {} with {unfinished} of {} flows unfinished",
            if end == "horizon" {
                "horizon"
            } else {
                "event limit"
            },
            sim.flows.len()
        ));
    }
    let meta = RunMeta {
        name: name.to_string(),
        seed,
        events,
        packet_hops: sim.counters.packet_hops,
        sim_time_s: to_secs(sim.now()),
        wall_s: wall.elapsed().as_secs_f64(),
        flows_total: sim.flows.len() as u64,
        flows_completed: sim.flows.completed as u64,
        flows_in_window: sim.flows.in_window,
        delivered: sim.counters.delivered,
        dropped: sim.counters.dropped,
        peak_packets: sim.arena.capacity_used() as u64,
        classes: b.class_names.clone(),
        warnings,
        segment_delivery: sim.flows.delivery.as_ref().map(|h| {
            (
                crate::transport::delivery_edges(),
                h.iter().map(|c| c.to_vec()).collect(),
            )
        }),
        end: end.to_string(),
        load,
    };
    RunOutput {
        flows,
        queues: sim.queue_table(),
        samples: sim.sample_table(),
        class_samples: sim.class_sample_table(),
        traces: sim.trace_table(),
        pipes: sim.pipe_table(),
        pipe_samples: sim.pipe_sample_table(),
        meta,
    }
}

/// Offered vs carried load per class over the measurement window.
fn class_load(sim: &crate::sim::Sim, n: usize) -> Vec<ClassLoad> {
    let (w0, w1) = sim.window;
    let secs = to_secs(w1.saturating_sub(w0)).max(f64::MIN_POSITIVE);
    // The capacity the generator's default load basis uses: Σ host link rates.
    let cap: f64 = (0..sim.n_hosts)
        .map(|h| sim.ports[sim.host_port(h) as usize].clock.rate().bps() as f64)
        .sum();
    (0..n)
        .map(|c| {
            let offered = sim.flows.offered_win.get(c).copied().unwrap_or(0);
            let carried = sim.class_rx_win.get(c).copied().unwrap_or(0);
            let (o, k) = (offered as f64 * 8.0 / secs, carried as f64 * 8.0 / secs);
            ClassLoad {
                offered_bps: o,
                carried_bps: k,
                offered_load: if cap > 0.0 { o / cap } else { f64::NAN },
                carried_load: if cap > 0.0 { k / cap } else { f64::NAN },
            }
        })
        .collect()
}

/// Parses, validates, builds and runs a scenario given as JSON.
pub fn run_json(
    json: &str,
    files: &dyn FileReader,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunOutput, ConfigError> {
    let sc = crate::scenario::from_json(json)?;
    run_scenario(&sc, files, progress)
}

pub fn run_scenario(
    sc: &Scenario,
    files: &dyn FileReader,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunOutput, ConfigError> {
    let built = sc.build(files)?;
    Ok(run_built(built, &sc.name, sc.seed, progress))
}

/// Time helper for callers.
pub fn secs(t: Time) -> f64 {
    to_secs(t)
}
