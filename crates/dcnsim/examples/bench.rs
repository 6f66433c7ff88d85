//! `cargo run --release -p dcnsim --example bench [NAME ...]`: runs the performance
//! scenarios single-threaded and prints events/s and packet-hops/s (the same scenarios as
//! `dcnsim bench`, without Python). Peak memory: run under `/usr/bin/time -v`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        dcnsim::bench::NAMES.to_vec()
    } else {
        args.iter().map(|s| s.as_str()).collect()
    };
    println!(
        "{:<22} {:>12} {:>12} {:>9} {:>8} {:>12} {:>14}",
        "bench", "events", "pkt-hops", "sim s", "wall s", "events/s", "pkt-hops/s"
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
            "{:<22} {:>12} {:>12} {:>9.4} {:>8.3} {:>12.0} {:>14.0}",
            n,
            m.events,
            m.packet_hops,
            m.sim_time_s,
            m.wall_s,
            m.events as f64 / m.wall_s,
            m.packet_hops as f64 / m.wall_s
        );
    }
}
