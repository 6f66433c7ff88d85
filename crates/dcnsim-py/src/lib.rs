//! PyO3 bindings: `dcnsim._core`. Only translation lives here — JSON scenarios in,
//! columns out, errors mapped to `ConfigError`, the GIL released while Rust runs, and no
//! Rust panic ever crossing into Python (it becomes a `RuntimeError` naming the bug).

use dcnsim::run::{run_built, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::{from_json, to_json, ConfigError as RsConfigError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "Bad scenario input: args are (message, key path)."
);

fn config_err(e: RsConfigError) -> PyErr {
    ConfigError::new_err((e.msg, e.path))
}

fn panic_err(p: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    PyRuntimeError::new_err(format!(
        "internal error in the dcnsim core (a simulator bug, please report it): {msg}"
    ))
}

/// The complete default scenario as JSON.
#[pyfunction]
fn defaults() -> String {
    to_json(&dcnsim::scenario::Scenario::default())
}

/// Validates a scenario (JSON) and returns it normalized (every default filled in).
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let s = scenario_json.to_string();
    py.detach(move || {
        catch_unwind(AssertUnwindSafe(|| {
            let sc = from_json(&s)?;
            // Building catches what only the topology/workloads reveal (dangling hosts, files).
            sc.build(&FsReader)?;
            Ok::<_, RsConfigError>(to_json(&sc))
        }))
    })
    .map_err(panic_err)?
    .map_err(config_err)
}

/// Validates a scenario (JSON) and returns it normalized with the warnings of settings that
/// cannot have an effect (the same list a run puts in `meta["warnings"]`, before running).
#[pyfunction]
fn validate_warnings(py: Python<'_>, scenario_json: &str) -> PyResult<(String, Vec<String>)> {
    let s = scenario_json.to_string();
    py.detach(move || {
        catch_unwind(AssertUnwindSafe(|| {
            let sc = from_json(&s)?;
            let built = sc.build(&FsReader)?;
            Ok::<_, RsConfigError>((to_json(&sc), built.warnings))
        }))
    })
    .map_err(panic_err)?
    .map_err(config_err)
}

fn cols_u64(py: Python<'_>, d: &Bound<'_, PyDict>, name: &str, v: &[u64]) -> PyResult<()> {
    d.set_item(name, PyList::new(py, v)?)
}

/// The `class` column of a per-row table: one Python string per class, each row a new
/// reference to its class's string (an id out of range: ""). A string per row would cost
/// the table's rows × the name's length: 10⁵ flows of a class with a long name held
/// gigabytes before the run's result reached Python.
fn class_names<'py>(
    py: Python<'py>,
    classes: &[String],
    ids: &[u64],
) -> PyResult<Bound<'py, PyList>> {
    let strs: Vec<Bound<'py, PyString>> = classes.iter().map(|n| PyString::new(py, n)).collect();
    let none = PyString::new(py, "");
    PyList::new(
        py,
        ids.iter().map(|&c| strs.get(c as usize).unwrap_or(&none)),
    )
}

fn output_to_py(py: Python<'_>, out: RunOutput) -> PyResult<Py<PyDict>> {
    let res = PyDict::new(py);
    let f = &out.flows;
    let flows = PyDict::new(py);
    cols_u64(py, &flows, "flow_id", &f.flow_id)?;
    cols_u64(py, &flows, "class_id", &f.class_id)?;
    flows.set_item("class", class_names(py, &out.meta.classes, &f.class_id)?)?;
    cols_u64(py, &flows, "priority", &f.priority)?;
    cols_u64(py, &flows, "src", &f.src)?;
    cols_u64(py, &flows, "dst", &f.dst)?;
    cols_u64(py, &flows, "size", &f.size)?;
    flows.set_item("start_s", &f.start_s)?;
    flows.set_item("finish_s", &f.finish_s)?;
    flows.set_item("fct_s", &f.fct_s)?;
    flows.set_item("ideal_fct_s", &f.ideal_fct_s)?;
    flows.set_item("slowdown", &f.slowdown)?;
    flows.set_item("completed", &f.completed)?;
    flows.set_item("in_window", &f.in_window)?;
    flows.set_item("sender_done_s", &f.sender_done_s)?;
    flows.set_item("deadline_s", &f.deadline_s)?;
    flows.set_item("established_s", &f.established_s)?;
    flows.set_item("fct_established_s", &f.fct_established_s)?;
    flows.set_item("rx_first_sent_s", &f.rx_first_sent_s)?;
    flows.set_item("rx_all_s", &f.rx_all_s)?;
    flows.set_item("srtt_s", &f.srtt_s)?;
    flows.set_item("rto_s", &f.rto_s)?;
    flows.set_item("delivered", &f.delivered)?;
    flows.set_item("alpha", &f.alpha)?;
    flows.set_item("reliability", &f.reliability)?;
    flows.set_item("r_fair_bps", &f.r_fair_bps)?;
    for (n, v) in [
        ("data_pkts", &f.data_pkts),
        ("retx_pkts", &f.retx_pkts),
        ("fast_retx", &f.fast_retx),
        ("rto_count", &f.rto_count),
        ("spurious_rto", &f.spurious_rto),
        ("spurious_retx", &f.spurious_retx),
        ("ecn_marks", &f.ecn_marks),
        ("max_cwnd", &f.max_cwnd),
        ("max_pkt_drops", &f.max_pkt_drops),
        ("drops", &f.drops),
        ("tag", &f.tag),
        ("cqcn_halts", &f.cqcn_halts),
        ("cnps", &f.cnps),
        ("syn_retx", &f.syn_retx),
        ("tlp_probes", &f.tlp_probes),
        ("tlp_recoveries", &f.tlp_recoveries),
        ("undo_rto", &f.undo_rto),
        ("undo_fast", &f.undo_fast),
        ("important_pkts", &f.important_pkts),
        ("important_bytes", &f.important_bytes),
        ("important_drops", &f.important_drops),
        ("clock_bytes", &f.clock_bytes),
        ("tlt_lost_segs", &f.tlt_lost_segs),
        ("reflex_intervals", &f.reflex_intervals),
        ("reflex_low", &f.reflex_low),
    ] {
        cols_u64(py, &flows, n, v)?;
    }
    res.set_item("flows", flows)?;

    let q = &out.queues;
    let queues = PyDict::new(py);
    cols_u64(py, &queues, "node", &q.node)?;
    queues.set_item("node_name", &q.node_name)?;
    cols_u64(py, &queues, "port", &q.port)?;
    queues.set_item("peer_name", &q.peer_name)?;
    for (n, v) in [
        ("queue", &q.queue),
        ("pkts_in", &q.pkts_in),
        ("bytes_in", &q.bytes_in),
        ("pkts_out", &q.pkts_out),
        ("bytes_out", &q.bytes_out),
        ("drops", &q.drops),
        ("drops_static", &q.drops_static),
        ("drops_port", &q.drops_port),
        ("drops_shared", &q.drops_shared),
        ("drops_scheme", &q.drops_scheme),
        ("drops_colour", &q.drops_colour),
        ("drops_headroom", &q.drops_headroom),
        ("green_drops", &q.green_drops),
        ("red_drops", &q.red_drops),
        ("pfc_pause_sent", &q.pfc_pause_sent),
        ("pfc_resume_sent", &q.pfc_resume_sent),
        ("pfc_pause_rx", &q.pfc_pause_rx),
        ("ecn_marks", &q.ecn_marks),
        ("max_bytes", &q.max_bytes),
        ("max_pkts", &q.max_pkts),
    ] {
        cols_u64(py, &queues, n, v)?;
    }
    queues.set_item("busy_s", &q.busy_s)?;
    queues.set_item("pfc_paused_s", &q.pfc_paused_s)?;
    queues.set_item("is_host", &q.is_host)?;
    res.set_item("queues", queues)?;

    let s = &out.samples;
    let samples = PyDict::new(py);
    samples.set_item("t_s", &s.t_s)?;
    cols_u64(py, &samples, "node", &s.node)?;
    cols_u64(py, &samples, "port", &s.port)?;
    cols_u64(py, &samples, "queue", &s.queue)?;
    cols_u64(py, &samples, "bytes", &s.bytes)?;
    cols_u64(py, &samples, "tx_bytes", &s.tx_bytes)?;
    samples.set_item("util", &s.util)?;
    cols_u64(py, &samples, "drops", &s.drops)?;
    cols_u64(py, &samples, "marks", &s.marks)?;
    res.set_item("samples", samples)?;

    let c = &out.class_samples;
    let class_samples = PyDict::new(py);
    class_samples.set_item("t_s", &c.t_s)?;
    cols_u64(py, &class_samples, "class_id", &c.class_id)?;
    class_samples.set_item("class", class_names(py, &out.meta.classes, &c.class_id)?)?;
    cols_u64(py, &class_samples, "bytes", &c.bytes)?;
    class_samples.set_item("goodput_bps", &c.goodput_bps)?;
    res.set_item("class_samples", class_samples)?;

    let t = &out.traces;
    let traces = PyDict::new(py);
    traces.set_item("t_s", &t.t_s)?;
    cols_u64(py, &traces, "flow_id", &t.flow_id)?;
    cols_u64(py, &traces, "cwnd", &t.cwnd)?;
    traces.set_item("ssthresh", &t.ssthresh)?;
    traces.set_item("srtt_s", &t.srtt_s)?;
    traces.set_item("rto_s", &t.rto_s)?;
    cols_u64(py, &traces, "bytes_acked", &t.bytes_acked)?;
    cols_u64(py, &traces, "inflight", &t.inflight)?;
    traces.set_item("rate_bps", &t.rate_bps)?;
    traces.set_item("alpha", &t.alpha)?;
    traces.set_item("r_fair_bps", &t.r_fair_bps)?;
    traces.set_item("reflex_low", &t.reflex_low)?;
    res.set_item("traces", traces)?;

    let p = &out.pipes;
    let pipes = PyDict::new(py);
    cols_u64(py, &pipes, "pipe_id", &p.pipe_id)?;
    cols_u64(py, &pipes, "src", &p.src)?;
    cols_u64(py, &pipes, "dst", &p.dst)?;
    pipes.set_item("objective", &p.objective)?;
    cols_u64(py, &pipes, "flows", &p.flows)?;
    cols_u64(py, &pipes, "demoted_flows", &p.demoted_flows)?;
    pipes.set_item("demoted", &p.demoted)?;
    for (n, v) in [
        ("guarantee_bps", &p.guarantee_bps),
        ("max_guarantee_bps", &p.max_guarantee_bps),
        ("mean_rate_bps", &p.mean_rate_bps),
        ("final_rate_bps", &p.final_rate_bps),
        ("weight", &p.weight),
        ("raw_weight", &p.raw_weight),
        ("marked_fraction", &p.marked_fraction),
    ] {
        pipes.set_item(n, v)?;
    }
    for (n, v) in [
        ("intervals", &p.intervals),
        ("tx_pkts", &p.tx_pkts),
        ("tx_bytes", &p.tx_bytes),
        ("rx_pkts", &p.rx_pkts),
        ("inner_marks", &p.inner_marks),
        ("drops", &p.drops),
        ("reports", &p.reports),
    ] {
        cols_u64(py, &pipes, n, v)?;
    }
    res.set_item("pipes", pipes)?;

    let ps = &out.pipe_samples;
    let pipe_samples = PyDict::new(py);
    pipe_samples.set_item("t_s", &ps.t_s)?;
    cols_u64(py, &pipe_samples, "pipe_id", &ps.pipe_id)?;
    for (n, v) in [
        ("rate_bps", &ps.rate_bps),
        ("guarantee_bps", &ps.guarantee_bps),
        ("weight", &ps.weight),
        ("marked_fraction", &ps.marked_fraction),
        ("sent_bps", &ps.sent_bps),
    ] {
        pipe_samples.set_item(n, v)?;
    }
    cols_u64(py, &pipe_samples, "backlog", &ps.backlog)?;
    res.set_item("pipe_samples", pipe_samples)?;

    let m = &out.meta;
    let meta = PyDict::new(py);
    meta.set_item("scenario_name", &m.name)?;
    meta.set_item("seed", m.seed)?;
    meta.set_item("version", env!("CARGO_PKG_VERSION"))?;
    meta.set_item("events", m.events)?;
    meta.set_item("packet_hops", m.packet_hops)?;
    meta.set_item("sim_time_s", m.sim_time_s)?;
    meta.set_item("wall_s", m.wall_s)?;
    meta.set_item("flows_total", m.flows_total)?;
    meta.set_item("flows_completed", m.flows_completed)?;
    meta.set_item("flows_in_window", m.flows_in_window)?;
    meta.set_item("delivered", m.delivered)?;
    meta.set_item("dropped", m.dropped)?;
    meta.set_item("peak_packets", m.peak_packets)?;
    meta.set_item("classes", &m.classes)?;
    meta.set_item("warnings", &m.warnings)?;
    if let Some((edges, counts)) = &m.segment_delivery {
        let d = PyDict::new(py);
        d.set_item("edges_s", edges)?;
        let per = PyDict::new(py);
        for (name, c) in m.classes.iter().zip(counts) {
            per.set_item(name, c)?;
        }
        d.set_item("counts", per)?;
        meta.set_item("segment_delivery", d)?;
    }
    meta.set_item("end", &m.end)?;
    let load = PyDict::new(py);
    for (name, l) in m.classes.iter().zip(&m.load) {
        let d = PyDict::new(py);
        d.set_item("offered_bps", l.offered_bps)?;
        d.set_item("carried_bps", l.carried_bps)?;
        d.set_item("offered_load", l.offered_load)?;
        d.set_item("carried_load", l.carried_load)?;
        load.set_item(name, d)?;
    }
    meta.set_item("load", load)?;
    res.set_item("meta", meta)?;
    Ok(res.unbind())
}

/// Runs a scenario (JSON). `progress(sim_time_s, target_s, flows_done, flows_total)` is
/// called about every `progress_interval_s` seconds of wall time; an exception raised by it
/// (or a pending signal such as Ctrl-C) stops the run and propagates.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None, progress_interval_s=0.2))]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    progress: Option<Py<PyAny>>,
    progress_interval_s: f64,
) -> PyResult<Py<PyDict>> {
    let s = scenario_json.to_string();
    let interval = Duration::from_secs_f64(progress_interval_s.max(0.0));
    let result = py.detach(move || {
        catch_unwind(AssertUnwindSafe(
            || -> Result<(RunOutput, Option<PyErr>), RsConfigError> {
                let sc = from_json(&s)?;
                let built = sc.build(&FsReader)?;
                let mut last = Instant::now();
                let mut py_err: Option<PyErr> = None;
                let mut cb = |p: &Progress| -> bool {
                    if last.elapsed() < interval {
                        return true;
                    }
                    last = Instant::now();
                    Python::attach(|py| {
                        if let Err(e) = py.check_signals() {
                            py_err = Some(e);
                            return false;
                        }
                        if let Some(f) = &progress {
                            if let Err(e) =
                                f.call1(py, (p.sim_time_s, p.target_s, p.flows_done, p.flows_total))
                            {
                                py_err = Some(e);
                                return false;
                            }
                        }
                        true
                    })
                };
                let out = run_built(built, &sc.name, sc.seed, &mut cb);
                Ok((out, py_err))
            },
        ))
    });
    let (out, err) = result.map_err(panic_err)?.map_err(config_err)?;
    if let Some(e) = err {
        return Err(e);
    }
    output_to_py(py, out)
}

/// Names of the shipped flow-size CDFs.
#[pyfunction]
fn builtin_cdfs() -> Vec<String> {
    dcnsim_workload_names()
}

fn dcnsim_workload_names() -> Vec<String> {
    dcnsim_workload::builtin_cdf_names()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The text of a shipped CDF.
#[pyfunction]
fn builtin_cdf(name: &str) -> PyResult<String> {
    dcnsim_workload::builtin_cdf(name)
        .map(str::to_string)
        .ok_or_else(|| {
            ConfigError::new_err((
                format!(
                    "unknown CDF {name:?}; expected one of {}",
                    dcnsim_workload_names().join(", ")
                ),
                "cdf".to_string(),
            ))
        })
}

#[pyfunction]
fn bench_names() -> Vec<String> {
    dcnsim::bench::NAMES.iter().map(|s| s.to_string()).collect()
}

/// Runs one performance scenario in this process (single-threaded).
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench(py: Python<'_>, name: &str) -> PyResult<Py<PyDict>> {
    let n = name.to_string();
    let m = py
        .detach(move || catch_unwind(AssertUnwindSafe(|| dcnsim::bench::run(&n))))
        .map_err(panic_err)?
        .ok_or_else(|| {
            ConfigError::new_err((
                format!(
                    "unknown benchmark {name:?}; expected one of {}",
                    dcnsim::bench::NAMES.join(", ")
                ),
                "bench".to_string(),
            ))
        })?;
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    d.set_item("events", m.events)?;
    d.set_item("packet_hops", m.packet_hops)?;
    d.set_item("sim_time_s", m.sim_time_s)?;
    d.set_item("wall_s", m.wall_s)?;
    d.set_item("events_per_s", m.events as f64 / m.wall_s)?;
    d.set_item("hops_per_s", m.packet_hops as f64 / m.wall_s)?;
    d.set_item("peak_packets", m.peak_packets)?;
    Ok(d.unbind())
}

/// The JSON of a benchmark scenario (to inspect or run it as a normal scenario).
#[pyfunction]
fn bench_scenario(name: &str) -> PyResult<String> {
    dcnsim::bench::scenario(name).ok_or_else(|| {
        ConfigError::new_err((format!("unknown benchmark {name:?}"), "bench".to_string()))
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_cdfs, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(bench_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    Ok(())
}
