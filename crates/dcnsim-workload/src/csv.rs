//! An explicit flow list in CSV.
//!
//! ```text
//! # comment lines and blank lines are ignored
//! src,dst,size,start,class,deadline
//! 0,1,1000000,0.0,0,
//! 2,1,1460,0.000125,1,0.001125
//! ```
//!
//! * The first non-comment line is the header. Columns are named, in any order:
//!   `src`, `dst`, `size`, `start` are required; `class` (default: the loading class, 0 for
//!   [`parse_flow_csv`]), `deadline` (empty = none) and `tag` (default 0) are optional.
//!   `alpha` and `reliability` (REFLEX flexible flows; empty = the class's value) are
//!   optional. Other or repeated names are errors.
//! * `alpha`: aggressiveness α, a number `>= 0` or `inf`; `reliability`: r in `[0, 1]`.
//! * `class`: with [`parse_flow_csv_in`], the index or the name of the scenario class that
//!   sends the flow (its transport and priority apply); empty = the loading class.
//! * `src`, `dst`: host indices `< n_hosts`, different. `size`: payload bytes, an integer
//!   `>= 1` (`1e6` or `1000.0` are accepted when they are whole numbers).
//! * `start` and `deadline` are in **seconds** (floats, converted to picoseconds rounding
//!   to nearest). `deadline` is **absolute**, like `FlowSpec::deadline`, and must be later
//!   than `start`; a budget of 1 ms for a flow starting at 2 s is written `2.001`.
//! * Fields are plain numbers separated by commas; quoting is not supported.
//!
//! The result is sorted by start; rows with equal starts keep file order. Errors have the
//! caller's key as path and name the line and column in the message.

use dcnsim_engine::{secs, Time};

use crate::error::{err, WorkloadError};
use crate::FlowSpec;

#[derive(Clone, Copy, PartialEq)]
enum Col {
    Src,
    Dst,
    Size,
    Start,
    Class,
    Deadline,
    Tag,
    Alpha,
    Reliability,
}

const COLS: &[(&str, Col)] = &[
    ("src", Col::Src),
    ("dst", Col::Dst),
    ("size", Col::Size),
    ("start", Col::Start),
    ("class", Col::Class),
    ("deadline", Col::Deadline),
    ("tag", Col::Tag),
    ("alpha", Col::Alpha),
    ("reliability", Col::Reliability),
];

/// Parses a CSV flow list (see the module docs) for a network of `n_hosts` hosts. The
/// `class` column is taken as a number (default 0) and not checked against any classes;
/// scenarios use [`parse_flow_csv_in`].
pub fn parse_flow_csv(
    text: &str,
    path: &str,
    n_hosts: u32,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    parse(text, path, n_hosts, None, 0)
}

/// Parses a CSV flow list loaded by class `default_class` of a scenario whose classes are
/// `class_names`: a row's `class` is the index (`0..class_names.len()`) or the name of the
/// class that sends it; empty or no column = `default_class`.
pub fn parse_flow_csv_in(
    text: &str,
    path: &str,
    n_hosts: u32,
    class_names: &[String],
    default_class: u16,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    parse(text, path, n_hosts, Some(class_names), default_class)
}

fn parse(
    text: &str,
    path: &str,
    n_hosts: u32,
    class_names: Option<&[String]>,
    default_class: u16,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    let mut header: Option<Vec<Col>> = None;
    let mut flows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let Some(cols) = &header else {
            header = Some(parse_header(&fields, path, line_no)?);
            continue;
        };
        if fields.len() != cols.len() {
            return err(
                path,
                format!(
                    "line {line_no}: expected {} comma-separated fields as in the header, got {}",
                    cols.len(),
                    fields.len()
                ),
            );
        }
        let mut f = FlowSpec {
            src: 0,
            dst: 0,
            size: 0,
            start: 0,
            class: default_class,
            deadline: None,
            tag: 0,
            alpha: None,
            reliability: None,
        };
        for (&col, &v) in cols.iter().zip(&fields) {
            let name = COLS.iter().find(|c| c.1 == col).map_or("", |c| c.0);
            let bad = |want: &str| -> WorkloadError {
                WorkloadError::new(
                    path,
                    format!("line {line_no}, column '{name}': expected {want}, got '{v}'"),
                )
            };
            match col {
                Col::Src | Col::Dst => {
                    let h = v.parse::<u32>().ok().filter(|&h| h < n_hosts);
                    let h = h.ok_or_else(|| bad(&format!("a host index in 0..{n_hosts}")))?;
                    if col == Col::Src {
                        f.src = h;
                    } else {
                        f.dst = h;
                    }
                }
                Col::Size => {
                    f.size = parse_bytes(v).ok_or_else(|| bad("an integer number of bytes >= 1"))?
                }
                Col::Start => {
                    f.start = parse_secs(v).ok_or_else(|| bad("a start time in seconds >= 0"))?
                }
                Col::Class if v.is_empty() => {}
                Col::Class => match class_names {
                    None => f.class = v.parse().map_err(|_| bad("a class number in 0..=65535"))?,
                    Some(names) => {
                        let by_index = v.parse::<usize>().ok().filter(|&i| i < names.len());
                        let i = by_index.or_else(|| names.iter().position(|n| n == v));
                        f.class = i.ok_or_else(|| {
                            bad(&format!(
                                "a class index in 0..{} or a class name ({})",
                                names.len(),
                                names.join(", ")
                            ))
                        })? as u16;
                    }
                },
                Col::Tag => {
                    if !v.is_empty() {
                        f.tag = v.parse().map_err(|_| bad("a tag in 0..=4294967295"))?;
                    }
                }
                Col::Alpha if v.is_empty() => {}
                Col::Alpha => {
                    let a = v.parse::<f64>().ok().filter(|a| *a >= 0.0);
                    f.alpha = Some(a.ok_or_else(|| bad("a number >= 0 or inf, or empty"))?);
                }
                Col::Reliability if v.is_empty() => {}
                Col::Reliability => {
                    let r = v.parse::<f64>().ok().filter(|r| (0.0..=1.0).contains(r));
                    f.reliability = Some(r.ok_or_else(|| bad("a number in [0, 1], or empty"))?);
                }
                Col::Deadline => {
                    if !v.is_empty() {
                        let d = parse_secs(v)
                            .ok_or_else(|| bad("an absolute deadline in seconds, or empty"))?;
                        f.deadline = Some(d);
                    }
                }
            }
        }
        if f.src == f.dst {
            return err(
                path,
                format!(
                    "line {line_no}, column 'dst': expected a host other than src = {}",
                    f.src
                ),
            );
        }
        if let Some(d) = f.deadline {
            if d <= f.start {
                return err(
                    path,
                    format!(
                        "line {line_no}, column 'deadline': expected an absolute time (seconds) \
                         after start = {} s, got {} s",
                        f.start as f64 / 1e12,
                        d as f64 / 1e12
                    ),
                );
            }
        }
        flows.push(f);
    }
    if header.is_none() {
        return err(
            path,
            "expected a header line 'src,dst,size,start[,class][,deadline]', got no lines",
        );
    }
    if flows.is_empty() {
        return err(
            path,
            "expected at least one flow after the header, got none",
        );
    }
    flows.sort_by_key(|f| f.start);
    Ok(flows)
}

fn parse_header(fields: &[&str], path: &str, line_no: usize) -> Result<Vec<Col>, WorkloadError> {
    let mut cols = Vec::with_capacity(fields.len());
    for &name in fields {
        let Some(&(_, c)) = COLS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) else {
            return err(
                path,
                format!(
                    "line {line_no}: unknown column '{name}'; expected src, dst, size, start and \
                     optionally class, deadline, tag, alpha, reliability"
                ),
            );
        };
        if cols.contains(&c) {
            return err(
                path,
                format!("line {line_no}: column '{name}' appears twice"),
            );
        }
        cols.push(c);
    }
    for (name, c) in &COLS[..4] {
        if !cols.contains(c) {
            return err(
                path,
                format!("line {line_no}: missing required column '{name}' in the header"),
            );
        }
    }
    Ok(cols)
}

/// A whole number of bytes >= 1, written as an integer or a whole float (`1e6`).
fn parse_bytes(v: &str) -> Option<u64> {
    if let Ok(n) = v.parse::<u64>() {
        return (n >= 1).then_some(n);
    }
    let x = v.parse::<f64>().ok()?;
    (x.is_finite() && x >= 1.0 && x.fract() == 0.0 && x <= u64::MAX as f64).then_some(x as u64)
}

/// Seconds (finite, >= 0, below ~213 days) to picoseconds.
fn parse_secs(v: &str) -> Option<Time> {
    let x = v.parse::<f64>().ok()?;
    (x.is_finite() && x >= 0.0 && x * 1e12 < u64::MAX as f64).then(|| secs(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, SEC, US};

    #[test]
    fn parses_and_sorts() {
        let text = "# flows\nsrc,dst,size,start,class,deadline\n\
                    0,1,1000000,0.5,0,\n2,1,1460,0.000125,1,0.001125\n\n3,0,1e3,0.5,2,0.6\n";
        let f = parse_flow_csv(text, "flows", 4).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(
            f[0],
            FlowSpec {
                src: 2,
                dst: 1,
                size: 1460,
                start: 125 * US,
                class: 1,
                deadline: Some(1125 * US),
                tag: 0,
                alpha: None,
                reliability: None,
            }
        );
        assert_eq!(f[1].src, 0);
        assert_eq!(f[1].deadline, None);
        assert_eq!(f[1].start, SEC / 2);
        assert_eq!(f[2].size, 1000);
        assert_eq!(f[2].deadline, Some(600 * MS));
        // Column order is free, optional columns may be absent.
        let f = parse_flow_csv("start,size,dst,src\n0.001,5,0,3\n", "flows", 4).unwrap();
        assert_eq!(
            (f[0].src, f[0].dst, f[0].size, f[0].start, f[0].class),
            (3, 0, 5, MS, 0)
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let h = "src,dst,size,start,class,deadline\n";
        let cases: &[(&str, &str)] = &[
            ("", "expected a header line"),
            ("# only a comment\n", "expected a header line"),
            (h, "expected at least one flow"),
            ("src,dst,size\n", "missing required column 'start'"),
            (
                "src,dst,size,start,color\n",
                "line 1: unknown column 'color'",
            ),
            ("src,dst,src,size,start\n", "column 'src' appears twice"),
            (
                "src,dst,size,start\n0,1,10\n",
                "line 2: expected 4 comma-separated fields",
            ),
            (
                "src,dst,size,start\n0,4,10,0\n",
                "line 2, column 'dst': expected a host index in 0..4, got '4'",
            ),
            (
                "src,dst,size,start\nx,1,10,0\n",
                "line 2, column 'src': expected a host index",
            ),
            (
                "src,dst,size,start\n1,1,10,0\n",
                "line 2, column 'dst': expected a host other than src = 1",
            ),
            (
                "src,dst,size,start\n0,1,0,0\n",
                "line 2, column 'size': expected an integer number of bytes >= 1, got '0'",
            ),
            ("src,dst,size,start\n0,1,1.5,0\n", "column 'size'"),
            (
                "src,dst,size,start\n0,1,10,-1\n",
                "line 2, column 'start': expected a start time in seconds >= 0",
            ),
            ("src,dst,size,start\n0,1,10,nan\n", "column 'start'"),
            (
                "src,dst,size,start,class\n\n0,1,10,0,70000\n",
                "line 3, column 'class': expected a class number",
            ),
            (
                "src,dst,size,start,deadline\n0,1,10,1.0,0.5\n",
                "line 2, column 'deadline': expected an absolute time (seconds) after start = 1 s",
            ),
            (
                "src,dst,size,start,deadline\n0,1,10,1.0,soon\n",
                "line 2, column 'deadline'",
            ),
            (
                "src,dst,size,start,tag\n0,1,10,1.0,-3\n",
                "line 2, column 'tag'",
            ),
        ];
        for (text, want) in cases {
            let e = parse_flow_csv(text, "classes[2].workload.file", 4).unwrap_err();
            assert_eq!(e.path, "classes[2].workload.file");
            assert!(
                e.msg.contains(want),
                "{text:?}: got '{}', want '{want}'",
                e.msg
            );
        }
    }

    #[test]
    fn class_column_names_a_scenario_class() {
        let names = ["bulk".to_string(), "rpc".to_string()];
        let text = "src,dst,size,start,class\n0,1,10,0,rpc\n0,1,10,1,0\n0,1,10,2,\n0,1,10,3,1\n";
        let f = parse_flow_csv_in(text, "csv", 4, &names, 1).unwrap();
        let classes: Vec<u16> = f.iter().map(|f| f.class).collect();
        assert_eq!(classes, [1, 0, 1, 1]);
        // no class column: the loading class
        let f = parse_flow_csv_in("src,dst,size,start\n0,1,10,0\n", "csv", 4, &names, 1).unwrap();
        assert_eq!(f[0].class, 1);
        for bad in ["2", "web", "-1"] {
            let text = format!("src,dst,size,start,class\n0,1,10,0,{bad}\n");
            let e = parse_flow_csv_in(&text, "csv", 4, &names, 0).unwrap_err();
            assert_eq!(e.path, "csv");
            assert_eq!(
                e.msg,
                format!(
                    "line 2, column 'class': expected a class index in 0..2 or a class name \
                     (bulk, rpc), got '{bad}'"
                )
            );
        }
    }

    #[test]
    fn flexible_columns() {
        let f = parse_flow_csv(
            "src,dst,size,start,alpha,reliability\n0,1,10,0,0.9,\n1,0,10,0,inf,0.5\n0,1,10,0,,\n",
            "csv",
            2,
        )
        .unwrap();
        assert_eq!((f[0].alpha, f[0].reliability), (Some(0.9), None));
        assert_eq!(
            (f[1].alpha, f[1].reliability),
            (Some(f64::INFINITY), Some(0.5))
        );
        assert_eq!((f[2].alpha, f[2].reliability), (None, None));
        let e = parse_flow_csv("src,dst,size,start,reliability\n0,1,10,0,1.5\n", "csv", 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("column 'reliability'") && e.contains("[0, 1]"),
            "{e}"
        );
        let e = parse_flow_csv("src,dst,size,start,alpha\n0,1,10,0,-1\n", "csv", 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("column 'alpha'"), "{e}");
    }
}
