//! `cargo run --release -p dcnsim --example bench [NAME ...]`: runs the performance
//! scenarios single-threaded and prints events/s and packet-hops/s (the same scenarios as
//! `dcnsim bench`, without Python) and the process's peak resident memory so far (Linux
//! `VmHWM`: name one benchmark per process for its own peak). Names in
//! `dcnsim::bench::EXTRA` (the 1e9-event run) run only when named.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        dcnsim::bench::NAMES.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    println!(
        "{:<22} {:>12} {:>12} {:>9} {:>8} {:>12} {:>14} {:>10}",
        "bench", "events", "pkt-hops", "sim s", "wall s", "events/s", "pkt-hops/s", "peak MiB"
    );
    for n in names {
        let Some(m) = dcnsim::bench::run(n) else {
            eprintln!(
                "unknown benchmark {n:?}; known: {}",
                dcnsim::bench::NAMES.join(", ")
            );
            std::process::exit(2);
        };
        println!(
            "{:<22} {:>12} {:>12} {:>9.4} {:>8.3} {:>12.0} {:>14.0} {:>10.1}",
            n,
            m.events,
            m.packet_hops,
            m.sim_time_s,
            m.wall_s,
            m.events as f64 / m.wall_s,
            m.packet_hops as f64 / m.wall_s,
            peak_mib()
        );
    }
}

/// The process's peak resident set so far in MiB (`VmHWM`; NaN where unavailable).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            l.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}
