//! A run's observations as `run --raw` keeps them: `raw/` (a Parquet file
//! per case) by default, small, read back by `analyze` to the run's own
//! verdicts, and read as one table by pandas and polars; `raw.csv.gz` and
//! `raw.csv` on request, read by Python's own modules.

mod common;
use common::*;

const INPUT: &str = "budget: 150ms\nrounds: 10\nsync: barrier\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512]\n    competitors: all\n";

/// A candidate as a verdict has it: name, observations, rounds, median of
/// per-round medians.
type Candidate = (String, u64, u64, f64);

/// What a results.json says of each case: verdict, severity, the
/// competitor that violated and the fastest, and each candidate.
fn decided(results: &serde_json::Value) -> Vec<(String, Vec<Candidate>)> {
    results["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let what = format!(
                "{} {} {} {} {} {}",
                c["size_bytes"],
                c["verdict"],
                c["severity"],
                c["violated_by"],
                c["fastest"],
                c["competitor"]
            );
            let candidates = c["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| {
                    (
                        k["name"].as_str().unwrap().to_string(),
                        k["n"].as_u64().unwrap(),
                        k["rounds"].as_u64().unwrap(),
                        k["round_median_s"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect();
            (what, candidates)
        })
        .collect()
}

#[test]
fn a_run_s_compact_observations_are_small_and_analyse_to_its_verdicts() {
    let dir = scratch("raw-compact");
    let input = input(&dir, "raw.yaml", INPUT);
    let out_dir = dir.join("out");
    let out = Launch::new(2, &["run", &input, "--output", out_dir.to_str().unwrap()])
        .report_only()
        .run();
    assert_eq!(out.code, Some(0), "{}", out.text());
    assert!(!out_dir.join("raw.csv").exists() && !out_dir.join("raw.csv.gz").exists());
    // A file per case, in the order measured.
    let cases = out_dir.join("raw");
    let mut files: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "case-00001.parquet",
            "case-00002.parquet",
            "case-00003.parquet"
        ]
    );
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(cases.join(f)).unwrap().len())
        .sum();
    // Bytes per observation, every row (valid or late) an observation.
    let text = raw_text(&out_dir);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "run,collective,size_bytes,count,datatype,op,root,candidate,round,valid,ns"
    );
    // Every row under the run's id, which results.json records: rows of
    // several runs can share one table.
    let run_id = results(&out_dir)["meta"]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(run_id.len() > "20260101T000000Z-1".len() - 2, "{run_id}");
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.starts_with(&format!("{run_id},"))),
        "{}",
        &text[..300]
    );
    let rows = lines.count();
    let per_observation = bytes as f64 / rows as f64;
    eprintln!("raw/: {rows} observations, {per_observation:.2} B each");
    assert!(rows >= 1_000, "{rows} observations");
    assert!(
        per_observation <= 16.0,
        "{per_observation:.2} B per observation"
    );
    // `analyze` reads it back to the run's verdicts: the times to the
    // picosecond, so that medians agree to that.
    let again = out_dir.join("again");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("analyze")
        .args(REPORT_ONLY)
        .arg(&out_dir)
        .arg("--output")
        .arg(&again)
        .output()
        .expect("pgcheck starts");
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    let (run, reread) = (decided(&results(&out_dir)), decided(&results(&again)));
    assert_eq!(run.len(), 3);
    for ((what, candidates), (what_again, candidates_again)) in run.iter().zip(&reread) {
        assert_eq!(what, what_again);
        for (c, a) in candidates.iter().zip(candidates_again) {
            assert_eq!((&c.0, c.1, c.2), (&a.0, a.1, a.2), "{what}");
            assert!(
                (c.3 - a.3).abs() <= 0.5e-12 || (c.3.is_nan() && a.3.is_nan()),
                "{what}: {} median {} then {}",
                c.0,
                c.3,
                a.3
            );
        }
    }
    // pandas (through pyarrow) and polars read the directory as one table,
    // with the same rows, late starts as missing times, and the same sum of
    // picoseconds.
    let valid = text.lines().filter(|l| l.contains(",true,")).count();
    let picoseconds: u64 = text
        .lines()
        .skip(1)
        .filter_map(|l| l.rsplit(',').next().filter(|ns| !ns.is_empty()))
        .map(|ns| (ns.parse::<f64>().unwrap() * 1e3).round() as u64)
        .sum();
    let expected = format!("{rows} {valid} {picoseconds}");
    let Some(python) = readers() else {
        return;
    };
    for (reader, script) in [
        ("pandas", "import sys, pandas\nd = pandas.read_parquet(sys.argv[1])\nprint(len(d), d['ps'].notna().sum(), int(d['ps'].sum()))"),
        ("polars", "import sys, polars\nd = polars.read_parquet(sys.argv[1] + '/*.parquet')\nprint(d.height, d['ps'].is_not_null().sum(), d['ps'].sum())"),
    ] {
        let out = std::process::Command::new(&python)
            .args(["-c", script])
            .arg(&cases)
            .output()
            .expect("python starts");
        assert!(out.status.success(), "{reader}: {out:?}");
        let counts = String::from_utf8(out.stdout).unwrap();
        assert_eq!(counts.trim(), expected, "{reader}");
    }
}

/// The Python with pandas, pyarrow and polars that ci/setup installs
/// (`PGCHECK_PYTHON`, from ci/env.sh), else `python3` if it has them;
/// None, having said so, where there is none (a failure under CI).
fn readers() -> Option<String> {
    let python = std::env::var("PGCHECK_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = std::process::Command::new(&python)
        .args(["-c", "import pandas, pyarrow, polars"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        cannot_run_here(&format!(
            "{python} has no pandas, pyarrow and polars (ci/setup installs them): raw/ not read by them"
        ));
        return None;
    }
    Some(python)
}

#[test]
fn raw_chooses_the_format_or_none() {
    let dir = scratch("raw-formats");
    let input = input(
        &dir,
        "raw.yaml",
        "budget: 20ms\nrounds: 6\nsync: barrier\nchecks:\n  - collective: bcast\n    sizes: [8]\n",
    );
    let out_dir = dir.join("out");
    let run = |raw: &str| {
        let out = Launch::new(
            2,
            &[
                "run",
                &input,
                "--raw",
                raw,
                "--output",
                out_dir.to_str().unwrap(),
            ],
        )
        .report_only()
        .run();
        assert_eq!(out.code, Some(0), "{}", out.text());
    };
    let kept = |names: &[&str]| {
        for name in ["raw", "raw.csv", "raw.csv.gz"] {
            let there = out_dir.join(name).exists();
            assert_eq!(there, names.contains(&name), "{name} kept: {there}");
        }
    };
    run("csv");
    kept(&["raw.csv"]);
    assert!(raw_text(&out_dir).starts_with(
        "run,collective,size_bytes,count,datatype,op,root,candidate,round,valid,seconds\n"
    ));
    run("none");
    kept(&[]);
    // raw.csv.gz: one gzip member per case, which Python's own gzip and
    // csv modules read.
    run("csv.gz");
    kept(&["raw.csv.gz"]);
    let text = raw_text(&out_dir);
    let rows = text.lines().count() - 1;
    let valid = text.lines().filter(|l| l.contains(",true,")).count();
    let stdlib = "import csv, gzip, sys\nr = list(csv.DictReader(gzip.open(sys.argv[1], 'rt')))\nprint(len(r), sum(x['ns'] != '' for x in r))";
    let out = std::process::Command::new("python3")
        .args(["-c", stdlib])
        .arg(out_dir.join("raw.csv.gz"))
        .output()
        .expect("python3 starts");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("{rows} {valid}")
    );
    run("parquet");
    kept(&["raw"]);
    assert!(raw_text(&out_dir).lines().count() > 1);
}
