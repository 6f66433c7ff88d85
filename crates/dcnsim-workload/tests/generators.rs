//! Poisson arrivals, pair patterns, incast and reproducibility.

use std::sync::Arc;

use dcnsim_workload::{
    incast, merge_sorted, poisson, Cdf, DeadlineDist, FlowSpec, Hosts, IncastSpec, Interp,
    LoadBasis, Pairs, PoissonSpec, SizeDist, MS, SEC, US,
};

const G10: u64 = 10_000_000_000;

fn websearch() -> SizeDist {
    SizeDist::cdf(Cdf::builtin("websearch", "sizes.cdf").unwrap())
}

/// Offered load = Σ 8·size / (capacity × duration).
fn offered(flows: &[FlowSpec], cap_bps: f64, start: u64, stop: u64) -> f64 {
    let bits: f64 = flows.iter().map(|f| 8.0 * f.size as f64).sum();
    bits / (cap_bps * (stop - start) as f64 / SEC as f64)
}

#[test]
fn poisson_fixed_size_hits_load_and_gaps_are_exponential() {
    let hosts = Hosts::star(16, G10);
    // λ = 0.6 × 160 Gb/s / (8 × 100 kB) = 120k flows/s: 2 s ≈ 240k flows.
    let spec = PoissonSpec::new(SizeDist::Fixed(100_000), 0.6, 0, 2 * SEC);
    let flows = poisson(&spec, &hosts, 1, 0).unwrap();
    assert!(flows.len() > 200_000, "{}", flows.len());
    let load = offered(&flows, 160e9, 0, 2 * SEC);
    assert!((load / 0.6 - 1.0).abs() < 0.02, "load {load}");
    // Inter-arrival gaps: mean 1/λ and coefficient of variation 1 (exponential).
    let gaps: Vec<f64> = flows
        .windows(2)
        .map(|w| (w[1].start - w[0].start) as f64)
        .collect();
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
    let want = SEC as f64 / 120_000.0;
    assert!(
        (mean / want - 1.0).abs() < 0.01,
        "mean gap {mean} vs {want}"
    );
    assert!((sd / mean - 1.0).abs() < 0.02, "cv {}", sd / mean);
    // Memorylessness: P(gap > mean) = e^-1.
    let frac = gaps.iter().filter(|&&g| g > want).count() as f64 / n;
    assert!((frac - (-1.0f64).exp()).abs() < 0.01, "{frac}");
    assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
    assert!(flows
        .iter()
        .all(|f| f.src != f.dst && f.src < 16 && f.dst < 16 && f.tag == 0));
}

#[test]
fn poisson_websearch_hits_load() {
    // Size CV 2.3: relative s.e. of offered load = sqrt((1 + CV²)/N) = 0.46% at 300k flows,
    // so 2% is > 4 standard errors.
    let hosts = Hosts::racks(4, 8, G10);
    let spec = PoissonSpec::new(websearch(), 0.5, 0, 0); // stop set below
    let lambda = 0.5 * 320e9 / (8.0 * 1_711_250.0);
    let stop = (300_000.0 / lambda * SEC as f64) as u64;
    let spec = PoissonSpec { stop, ..spec };
    let flows = poisson(&spec, &hosts, 99, 3).unwrap();
    assert!(flows.len() > 290_000);
    let load = offered(&flows, 320e9, 0, stop);
    assert!((load / 0.5 - 1.0).abs() < 0.02, "load {load}");
}

#[test]
fn load_bases() {
    let hosts = Hosts::star(8, G10);
    let mut spec = PoissonSpec::new(SizeDist::Fixed(10_000), 0.5, 0, 200 * MS);
    spec.load_basis = LoadBasis::Bisection {
        bps: 40_000_000_000,
    };
    let f = poisson(&spec, &hosts, 1, 0).unwrap();
    let l = offered(&f, 40e9, 0, 200 * MS);
    assert!((l / 0.5 - 1.0).abs() < 0.02, "bisection {l}");

    spec.load_basis = LoadBasis::SenderHosts;
    spec.pairs = Pairs::Fixed {
        src: vec![0, 1],
        dst: vec![2, 3, 4],
    };
    let f = poisson(&spec, &hosts, 1, 0).unwrap();
    let l = offered(&f, 20e9, 0, 200 * MS);
    assert!((l / 0.5 - 1.0).abs() < 0.02, "sender hosts {l}");
    assert!(f.iter().all(|x| x.src <= 1 && (2..=4).contains(&x.dst)));

    // HostLinks with Fixed pairs still counts every host.
    spec.load_basis = LoadBasis::HostLinks;
    let f = poisson(&spec, &hosts, 1, 0).unwrap();
    let l = offered(&f, 80e9, 0, 200 * MS);
    assert!((l / 0.5 - 1.0).abs() < 0.02, "host links {l}");

    let mut s = PoissonSpec::new(SizeDist::Fixed(10_000), 0.5, 0, SEC);
    s.max_flows = Some(123);
    assert_eq!(poisson(&s, &hosts, 1, 0).unwrap().len(), 123);
}

#[test]
fn poisson_pair_patterns() {
    let hosts = Hosts::racks(4, 4, G10);
    let run = |pairs: Pairs| {
        let mut s = PoissonSpec::new(SizeDist::Fixed(1000), 0.3, 0, 10 * MS);
        s.pairs = pairs;
        poisson(&s, &hosts, 5, 0).unwrap()
    };
    let rack = |h: u32| hosts.rack_of[h as usize];
    let f = run(Pairs::IntraRack);
    assert!(
        f.len() > 1000
            && f.iter()
                .all(|x| x.src != x.dst && rack(x.src) == rack(x.dst))
    );
    let f = run(Pairs::InterRack);
    assert!(f.len() > 1000 && f.iter().all(|x| rack(x.src) != rack(x.dst)));
    let f = run(Pairs::Permutation);
    let mut dst_of = [None; 16];
    for x in &f {
        assert_ne!(x.src, x.dst);
        assert!(
            dst_of[x.src as usize].is_none_or(|d| d == x.dst),
            "fixed permutation"
        );
        dst_of[x.src as usize] = Some(x.dst);
    }
    let mut d: Vec<u32> = dst_of.iter().map(|x| x.unwrap()).collect();
    d.sort();
    assert_eq!(d, (0..16).collect::<Vec<_>>(), "a permutation");
    let f = run(Pairs::AllToAll);
    assert!(f.iter().all(|x| x.src != x.dst));
}

#[test]
fn reproducible_and_streams_independent() {
    let hosts = Hosts::star(16, G10);
    let a = PoissonSpec::new(websearch(), 0.4, 0, 50 * MS);
    let fa = poisson(&a, &hosts, 7, 0).unwrap();
    assert_eq!(
        fa,
        poisson(&a, &hosts, 7, 0).unwrap(),
        "same seed, same flows"
    );
    assert_ne!(
        fa,
        poisson(&a, &hosts, 8, 0).unwrap(),
        "other seed, other flows"
    );
    assert_ne!(
        fa,
        poisson(&a, &hosts, 7, 1).unwrap(),
        "other stream index, other flows"
    );

    // Same mean, other distribution: identical starts and pairs (separate size stream).
    let fixed = PoissonSpec {
        sizes: SizeDist::Fixed(1000),
        ..a.clone()
    };
    let unif = PoissonSpec {
        sizes: SizeDist::Uniform { lo: 1, hi: 1999 },
        ..a.clone()
    };
    let (f1, f2) = (
        poisson(&fixed, &hosts, 7, 0).unwrap(),
        poisson(&unif, &hosts, 7, 0).unwrap(),
    );
    assert!(f1.len() > 1000);
    let key = |f: &[FlowSpec]| {
        f.iter()
            .map(|x| (x.start, x.src, x.dst))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&f1), key(&f2));
    assert_ne!(
        f1.iter().map(|x| x.size).collect::<Vec<_>>(),
        f2.iter().map(|x| x.size).collect::<Vec<_>>()
    );
    // A deadline does not change sizes, starts or pairs.
    let with_dl = PoissonSpec {
        deadline: Some(DeadlineDist::Exp { mean: MS, min: 0 }),
        ..a.clone()
    };
    let fd = poisson(&with_dl, &hosts, 7, 0).unwrap();
    assert_eq!(
        fd.iter()
            .map(|x| FlowSpec {
                deadline: None,
                ..x.clone()
            })
            .collect::<Vec<_>>(),
        fa
    );
    // Interpolation changes sizes only.
    let step = PoissonSpec {
        sizes: SizeDist::Cdf {
            cdf: Arc::new(Cdf::builtin("fb_webserver_homa", "c").unwrap()),
            interp: Interp::Step,
            scale: 1.0,
        },
        ..a.clone()
    };
    let lin = PoissonSpec {
        sizes: SizeDist::Cdf {
            cdf: Arc::new(Cdf::builtin("fb_webserver_homa", "c").unwrap()),
            interp: Interp::Linear,
            scale: 1.0,
        },
        ..a.clone()
    };
    let (fs, fl) = (
        poisson(&step, &hosts, 7, 0).unwrap(),
        poisson(&lin, &hosts, 7, 0).unwrap(),
    );
    // (The means differ by 1%, so the rates and counts differ; the pair sequence does not.)
    let k = fs.len().min(fl.len());
    assert!(
        k > 1000
            && fs[..k]
                .iter()
                .zip(&fl[..k])
                .all(|(a, b)| (a.src, a.dst) == (b.src, b.dst))
    );
    assert!(fs.iter().zip(&fl).any(|(a, b)| a.size != b.size));

    // Two classes: changing class B's parameters leaves class A's flows in the merged list unchanged.
    let class_a = PoissonSpec {
        class: 0,
        ..a.clone()
    };
    let class_b1 = PoissonSpec {
        class: 1,
        sizes: SizeDist::Fixed(5000),
        load: 0.2,
        ..a.clone()
    };
    let class_b2 = PoissonSpec {
        class: 1,
        sizes: websearch(),
        load: 0.1,
        pairs: Pairs::Permutation,
        ..a.clone()
    };
    let merged = |b: &PoissonSpec| {
        merge_sorted(vec![
            poisson(&class_a, &hosts, 7, 0).unwrap(),
            poisson(b, &hosts, 7, 1).unwrap(),
        ])
    };
    let (m1, m2) = (merged(&class_b1), merged(&class_b2));
    let only_a = |m: &[FlowSpec]| {
        m.iter()
            .filter(|x| x.class == 0)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(only_a(&m1), only_a(&m2));
    assert_eq!(only_a(&m1), fa);
    assert!(m1.windows(2).all(|w| w[0].start <= w[1].start));
    assert_ne!(m1, m2);
}

#[test]
fn poisson_validation_errors() {
    let hosts = Hosts::star(4, G10);
    let ok = PoissonSpec::new(SizeDist::Fixed(1000), 0.5, 0, MS);
    let check = |s: PoissonSpec, h: &Hosts, path: &str, want: &str| {
        let e = poisson(&s, h, 1, 0).unwrap_err().at("classes[1].workload");
        assert_eq!(e.path, format!("classes[1].workload.{path}"));
        assert!(
            e.msg.contains(want),
            "{path}: got '{}', want '{want}'",
            e.msg
        );
    };
    for bad in [0.0, -0.1, 1.5, f64::NAN] {
        check(
            PoissonSpec {
                load: bad,
                ..ok.clone()
            },
            &hosts,
            "load",
            "expected a load fraction in (0, 1]",
        );
    }
    check(
        PoissonSpec {
            stop: 0,
            ..ok.clone()
        },
        &hosts,
        "stop",
        "expected stop > start = 0 ps, got 0",
    );
    check(
        PoissonSpec {
            sizes: SizeDist::Fixed(0),
            ..ok.clone()
        },
        &hosts,
        "sizes",
        "expected a fixed size >= 1 byte",
    );
    check(
        PoissonSpec {
            sizes: SizeDist::Uniform { lo: 9, hi: 3 },
            ..ok.clone()
        },
        &hosts,
        "sizes.hi",
        "expected hi >= lo",
    );
    check(
        PoissonSpec {
            deadline: Some(DeadlineDist::Fixed(0)),
            ..ok.clone()
        },
        &hosts,
        "deadline",
        "expected a deadline budget > 0",
    );
    check(
        PoissonSpec {
            load_basis: LoadBasis::Bisection { bps: 0 },
            ..ok.clone()
        },
        &hosts,
        "load_basis.bps",
        "expected a bisection bandwidth > 0",
    );
    check(
        PoissonSpec {
            pairs: Pairs::InterRack,
            ..ok.clone()
        },
        &hosts,
        "pairs",
        "expected at least 2 racks",
    );
    check(
        PoissonSpec {
            pairs: Pairs::Fixed {
                src: vec![0],
                dst: vec![7],
            },
            ..ok.clone()
        },
        &hosts,
        "pairs.dst[0]",
        "expected a host index < 4, got 7",
    );
    check(
        ok.clone(),
        &Hosts::star(1, G10),
        "hosts.n",
        "expected at least 2 hosts, got 1",
    );
    check(
        PoissonSpec {
            stop: 1000 * SEC,
            sizes: SizeDist::Fixed(1),
            ..ok.clone()
        },
        &hosts,
        "stop",
        "expected at most 50000000 flows",
    );
    // ...unless capped by max_flows.
    let capped = PoissonSpec {
        stop: 1000 * SEC,
        sizes: SizeDist::Fixed(1),
        max_flows: Some(10),
        ..ok
    };
    assert_eq!(poisson(&capped, &hosts, 1, 0).unwrap().len(), 10);
}

#[test]
fn one_shot_incast_is_synchronized() {
    let hosts = Hosts::star(40, G10);
    let spec = IncastSpec::one_shot(5, 8, 500_000, 3 * MS);
    let f = incast(&spec, &hosts, 1, 0).unwrap();
    assert_eq!(f.len(), 8);
    assert!(f.iter().all(|x| x.dst == 5
        && x.src != 5
        && x.start == 3 * MS
        && x.size == 500_000
        && x.tag == 1));
    let mut s: Vec<u32> = f.iter().map(|x| x.src).collect();
    s.dedup();
    assert_eq!(s.len(), 8, "distinct senders, ascending");
    assert!(s.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(f, incast(&spec, &hosts, 1, 0).unwrap());
    assert_ne!(f, incast(&spec, &hosts, 2, 0).unwrap());

    // With jitter the starts spread over [start, start + jitter).
    let j = IncastSpec {
        jitter: 10 * US,
        ..spec.clone()
    };
    let f = incast(&j, &hosts, 1, 0).unwrap();
    assert!(f
        .iter()
        .all(|x| (3 * MS..3 * MS + 10 * US).contains(&x.start)));
    assert!(f.iter().any(|x| x.start != f[0].start));
    assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
}

#[test]
fn periodic_on_off_incast() {
    let hosts = Hosts::star(40, G10);
    let workers: Vec<u32> = (1..=8).collect();
    let spec = IncastSpec::on_off(0, workers.clone(), 4_000_000, 5 * MS, MS, 101 * MS);
    let f = incast(&spec, &hosts, 1, 0).unwrap();
    assert_eq!(f.len(), 20 * 8);
    for (k, round) in f.chunks(8).enumerate() {
        assert!(round
            .iter()
            .all(|x| x.start == MS + k as u64 * 5 * MS && x.tag == k as u32 + 1));
        assert_eq!(round.iter().map(|x| x.src).collect::<Vec<_>>(), workers);
        assert!(round.iter().all(|x| x.dst == 0 && x.size == 500_000));
    }
    // LPF period for a load: exact on a whole number of periods.
    let s = IncastSpec::on_off_at_load(0, workers, 4_000_000, 0.25, G10, 0, SEC).unwrap();
    assert_eq!(s.period, Some(12_800 * US));
    let s = IncastSpec {
        stop: 1280 * MS,
        ..s
    };
    let f = incast(&s, &hosts, 1, 0).unwrap();
    let l = offered(&f, 1e10, 0, 1280 * MS);
    assert!((l / 0.25 - 1.0).abs() < 1e-9, "{l}");
}

#[test]
fn poisson_round_incast_hits_load() {
    // 8:1, 64 kB aggregate at 0.3 of the receiver's 10 Gb/s: mean gap 170.7 us; 40k
    // rounds give a relative s.e. of 0.5%, so 2% is 4 standard errors.
    let hosts = Hosts::star(16, G10);
    let spec = IncastSpec {
        load: Some(0.3),
        period: None,
        stop: 40_000 * 170_667 * 1000,
        ..IncastSpec::one_shot(3, 8, 8_000, 0)
    };
    let f = incast(&spec, &hosts, 4, 0).unwrap();
    let l = offered(&f, 1e10, 0, spec.stop);
    assert!((l / 0.3 - 1.0).abs() < 0.02, "{l}");
    // Senders of one round share its start; senders vary between rounds.
    let rounds = f.last().unwrap().tag as usize;
    assert!(rounds > 39_000);
    for r in f.chunks(8) {
        assert!(r
            .iter()
            .all(|x| x.start == r[0].start && x.tag == r[0].tag && x.dst == 3 && x.src != 3));
    }
    assert_ne!(
        f[..8].iter().map(|x| x.src).collect::<Vec<_>>(),
        f[8..16].iter().map(|x| x.src).collect::<Vec<_>>()
    );
}

#[test]
fn random_receiver_and_rack_exclusion() {
    let hosts = Hosts::racks(4, 4, G10);
    let spec = IncastSpec {
        receiver: None,
        period: Some(MS),
        stop: 200 * MS,
        exclude_receiver_rack: true,
        ..IncastSpec::one_shot(0, 12, 1000, 0)
    };
    let f = incast(&spec, &hosts, 3, 0).unwrap();
    assert_eq!(f.len(), 200 * 12);
    let mut receivers = std::collections::BTreeSet::new();
    for r in f.chunks(12) {
        let d = r[0].dst;
        receivers.insert(d);
        assert!(r
            .iter()
            .all(|x| x.dst == d && hosts.rack_of[x.src as usize] != hosts.rack_of[d as usize]));
    }
    assert_eq!(receivers.len(), 16);
    // 13 would need a sender in the receiver's rack.
    let e = incast(
        &IncastSpec {
            fan_in: 13,
            ..spec.clone()
        },
        &hosts,
        3,
        0,
    )
    .unwrap_err();
    assert_eq!(e.path, "fan_in");
    assert!(
        e.msg.contains("expected at most 12 senders")
            && e.msg.contains("outside the receiver's rack"),
        "{e}"
    );
}

#[test]
fn incast_validation_errors() {
    let hosts = Hosts::star(10, G10);
    let ok = IncastSpec::one_shot(0, 4, 1000, 0);
    let check = |s: IncastSpec, path: &str, want: &str| {
        let e = incast(&s, &hosts, 1, 0).unwrap_err();
        assert_eq!(e.path, path);
        assert!(
            e.msg.contains(want),
            "{path}: got '{}', want '{want}'",
            e.msg
        );
    };
    check(
        IncastSpec {
            fan_in: 10,
            ..ok.clone()
        },
        "fan_in",
        "expected at most 9 senders (all hosts, without the receiver, for receiver 0), got 10",
    );
    check(
        IncastSpec {
            fan_in: 3,
            senders: Some(vec![0, 1, 2]),
            ..ok.clone()
        },
        "fan_in",
        "expected at most 2 senders (the senders list",
    );
    check(
        IncastSpec {
            fan_in: 10,
            receiver: None,
            ..ok.clone()
        },
        "fan_in",
        "worst case of a random receiver",
    );
    check(
        IncastSpec {
            fan_in: 0,
            ..ok.clone()
        },
        "fan_in",
        "expected at least 1 sender",
    );
    check(
        IncastSpec {
            receiver: Some(10),
            ..ok.clone()
        },
        "receiver",
        "expected a host index < 10, got 10",
    );
    check(
        IncastSpec {
            senders: Some(vec![1, 1]),
            ..ok.clone()
        },
        "senders[1]",
        "listed twice",
    );
    check(
        IncastSpec {
            senders: Some(vec![]),
            ..ok.clone()
        },
        "senders",
        "non-empty",
    );
    check(
        IncastSpec {
            period: Some(0),
            stop: MS,
            ..ok.clone()
        },
        "period",
        "expected a period > 0",
    );
    check(
        IncastSpec {
            period: Some(MS),
            stop: 0,
            ..ok.clone()
        },
        "stop",
        "expected stop > start",
    );
    check(
        IncastSpec {
            period: Some(MS),
            load: Some(0.5),
            stop: SEC,
            ..ok.clone()
        },
        "load",
        "at most one of period and load",
    );
    check(
        IncastSpec {
            load: Some(2.0),
            stop: SEC,
            ..ok.clone()
        },
        "load",
        "expected a load fraction in (0, 1]",
    );
    check(
        IncastSpec {
            bytes_per_sender: SizeDist::Fixed(0),
            ..ok.clone()
        },
        "bytes_per_sender",
        ">= 1 byte",
    );
    check(
        IncastSpec {
            period: Some(1),
            stop: SEC,
            ..ok.clone()
        },
        "stop",
        "expected at most 50000000 flows",
    );
    // Senders never include the receiver, even when listed.
    let s = IncastSpec {
        fan_in: 2,
        senders: Some(vec![0, 1, 2]),
        ..ok
    };
    let f = incast(&s, &hosts, 1, 0).unwrap();
    assert_eq!(f.iter().map(|x| x.src).collect::<Vec<_>>(), vec![1, 2]);
}

#[test]
fn several_flows_per_sender() {
    // TLT §7.1: every sender opens 8 flows of 8 kB to the round's receiver.
    let hosts = Hosts::racks(4, 4, G10);
    let spec = IncastSpec {
        receiver: None,
        period: Some(MS),
        stop: 10 * MS,
        flows_per_sender: 8,
        ..IncastSpec::one_shot(0, 15, 8000, 0)
    };
    let f = incast(&spec, &hosts, 5, 0).unwrap();
    assert_eq!(f.len(), 10 * 15 * 8);
    for r in f.chunks(15 * 8) {
        let mut per_src = std::collections::BTreeMap::new();
        for x in r {
            assert_eq!((x.dst, x.tag, x.size), (r[0].dst, r[0].tag, 8000));
            *per_src.entry(x.src).or_insert(0) += 1;
        }
        assert_eq!(per_src.len(), 15);
        assert!(per_src.values().all(|&n| n == 8));
    }
    let bad = IncastSpec {
        flows_per_sender: 0,
        ..spec
    };
    assert_eq!(
        incast(&bad, &hosts, 5, 0).unwrap_err().path,
        "flows_per_sender"
    );
}
