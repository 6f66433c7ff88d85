//! `cargo run --release -p dcnsim --example bench [NAME ...]`: runs the performance
//! scenarios single-threaded and prints events/s and packet-hops/s (the same scenarios as
//! `dcnsim bench`, without Python). `ns/hop` is wall time per packet-hop; `peak MiB` is the
//! process's peak resident memory so far (Linux `VmHWM`; run one benchmark per process for
//! its own peak).
//! Names in `dcnsim::bench::EXTRA` (the 1e9-event run) run only when named.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        dcnsim::bench::NAMES.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    println!(
        "{:<22} {:>12} {:>12} {:>9} {:>8} {:>12} {:>14} {:>7} {:>9}",
        "bench",
        "events",
        "pkt-hops",
        "sim s",
        "wall s",
        "events/s",
        "pkt-hops/s",
        "ns/hop",
        "peak MiB"
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
            "{:<22} {:>12} {:>12} {:>9.4} {:>8.3} {:>12.0} {:>14.0} {:>7.0} {:>9}",
            n,
            m.events,
            m.packet_hops,
            m.sim_time_s,
            m.wall_s,
            m.events as f64 / m.wall_s,
            m.packet_hops as f64 / m.wall_s,
            m.wall_s * 1e9 / m.packet_hops.max(1) as f64,
            peak_mib().map_or("-".to_string(), |x| format!("{x:.1}"))
        );
    }
}

/// Peak resident memory of this process in MiB (Linux: `VmHWM` in /proc/self/status).
fn peak_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = s
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}
