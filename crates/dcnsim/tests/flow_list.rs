//! Flow lists: the `class` column of a CSV names the class that sends each flow.

use dcnsim::run::{run_json, Progress};
use dcnsim::scenario::build::FsReader;

fn scenario(csv_path: &str) -> String {
    serde_json::json!({
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [
            {"name": "bulk", "priority": 2, "transport": "cubic",
             "workload": {"kind": "flows", "csv": csv_path,
                          "list": [{"src": 2, "dst": 1, "size": 1000, "start": "3us"}]}},
            {"name": "rpc", "priority": 0, "transport": "dctcp",
             "workload": {"kind": "flows", "list": [{"src": 2, "dst": 0, "size": 1000, "start": "4us"}]}}
        ],
        "run": {"duration": "1ms"}
    })
    .to_string()
}

fn write_csv(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!(
        "dcnsim-flow-list-{}-{name}.csv",
        std::process::id()
    ));
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn csv_class_column_is_honoured_by_index_or_name() {
    // Loaded by class 0 ("bulk"): rows name rpc by name and by index, bulk, or nothing.
    let csv = write_csv(
        "ok",
        "src,dst,size,start,class\n0,1,1000,0,rpc\n0,1,1000,0.000001,1\n0,1,1000,0.000002,\n1,0,1000,0.000005,bulk\n",
    );
    let out = run_json(&scenario(&csv), &FsReader, &mut |_: &Progress| true)
        .unwrap_or_else(|e| panic!("{e}"));
    let f = &out.flows;
    // Rows in start order: csv t=0 (rpc), t=1us (1), t=2us (loading class), list t=3us
    // (bulk), rpc's own list t=4us, csv t=5us (bulk).
    assert_eq!(f.class_id, [1, 1, 0, 0, 1, 0]);
    assert_eq!(f.priority, [0, 0, 2, 2, 0, 2]);
    assert!(f.completed.iter().all(|&c| c));
    std::fs::remove_file(csv).ok();
}

#[test]
fn csv_class_column_rejects_unknown_classes_with_the_key() {
    let csv = write_csv("bad", "src,dst,size,start,class\n0,1,1000,0,web\n");
    let Err(e) = run_json(&scenario(&csv), &FsReader, &mut |_: &Progress| true) else {
        panic!("expected an error");
    };
    assert_eq!(e.path, "classes[0].workload.csv");
    assert_eq!(
        e.msg,
        "line 2, column 'class': expected a class index in 0..2 or a class name (bulk, rpc), got 'web'"
    );
    std::fs::remove_file(csv).ok();
}
