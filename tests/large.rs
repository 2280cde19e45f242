//! Large calls: the plan says which cases have calls longer than a round's
//! share of the budget and counts the time those calls take, and
//! `--max-memory` bounds the peak resident set of every rank.

mod common;
use common::faults::with_fault;
use common::*;

/// The first number in `line` after `marker`.
fn number_after(line: &str, marker: &str) -> f64 {
    let rest = &line[line
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {line}"))
        + marker.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("a number after {marker} in {line}"))
}

#[test]
fn the_plan_names_calls_longer_than_a_slice_and_counts_their_time() {
    // Every MPI_Allreduce of 1024 B spins 100 ms after the real call: longer
    // than the 50 ms slice of a 200 ms budget in 4 rounds. The 64 B case
    // keeps its budget.
    let dir = scratch("long-calls");
    let input = input(
        &dir,
        "input.yaml",
        "datatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [64, 1024]\n    competitors: [allreduce_as_allreduce_self]\n",
    );
    let out_dir = dir.join("out");
    let args = [
        "run",
        &input,
        "--output",
        out_dir.to_str().unwrap(),
        "--budget",
        "200ms",
        "--rounds",
        "4",
        "--warmup",
        "1",
        "--sync",
        "barrier",
        "--allow-powerless",
    ];
    let out = with_fault(
        Launch::new(2, &args).report_only(),
        "MPI_Allreduce:delay=100000,bytes=1024",
    )
    .run();
    assert_eq!(out.code, Some(0), "{}", out.text());
    let messages = messages(&out.stderr);
    let long: Vec<&String> = messages
        .iter()
        .filter(|l| l.starts_with("long calls:"))
        .collect();
    assert_eq!(long.len(), 1, "{}", out.text());
    let line = long[0];
    assert!(line.contains("allreduce 1024 B"), "{line}");
    assert!(number_after(line, "takes") >= 100.0, "{line}");
    // 2 candidates × 4 rounds of a timed and a checking call of at least
    // 100 ms each, and 2 calls each outside the slices (a warm-up and a
    // verification).
    assert!(
        number_after(line, "one more that checks its output,") >= 1.6,
        "{line}"
    );
    assert!(line.contains("2 more calls each"), "{line}");
    assert!(number_after(line, "verification,") >= 0.4, "{line}");
    // The budget alone books 0.8 s; the plan's first line counts the long
    // calls instead of 1024 B's 0.4 s of budget, and no later line
    // corrects it.
    let plan = messages
        .iter()
        .find(|l| l.starts_with("plan:"))
        .unwrap_or_else(|| panic!("{}", out.text()));
    assert!(plan.contains("with the long calls below"), "{plan}");
    assert!(
        number_after(plan, "200ms budget,") >= 0.4 + 1.6 + 0.4,
        "{plan}"
    );
    assert!(
        !messages.iter().any(|l| l.starts_with("plan with")),
        "{}",
        out.text()
    );
    let r = results(&out_dir);
    assert!(
        r["meta"]["plan_s"].as_f64().unwrap() >= 2.4,
        "{}",
        r["meta"]
    );
}

#[test]
fn max_memory_bounds_every_ranks_peak_and_skips_what_does_not_fit() {
    // 64 MiB of int32 summed on 2 ranks: 128 MiB of buffers, 128 MiB of
    // verification (send buffer and expected output), 64 MiB of in-place
    // verification and 128 MiB for the library's temporaries fit in 512 MiB
    // with the process itself; a competitor's 128 MiB of scratch does not,
    // nor does any of the 128 MiB case.
    let dir = scratch("max-memory");
    let input = input(
        &dir,
        "input.yaml",
        "datatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [67108864, 134217728]\n    competitors: [allreduce_as_reduce_bcast]\n",
    );
    let out_dir = dir.join("out");
    let limit: u64 = 512 << 20;
    let out = pgcheck(
        2,
        &[
            "run",
            &input,
            "--output",
            out_dir.to_str().unwrap(),
            "--max-memory",
            "512MiB",
            "--budget",
            "100ms",
            "--rounds",
            "2",
            "--warmup",
            "1",
            "--sync",
            "barrier",
            "--allow-powerless",
        ],
    );
    // The 128 MiB case has no verdict: its default was not measured.
    assert_eq!(out.code, Some(6), "{}", out.text());
    let r = results(&out_dir);
    let peak = r["meta"]["largest_peak_rss_bytes"].as_u64().unwrap();
    assert!(peak > 0 && peak <= limit, "peak {peak} B above {limit} B");
    let fits = r["checks"][0]["candidates"].as_array().unwrap();
    assert_eq!(fits[0]["status"], "measured", "{fits:?}");
    assert_eq!(fits[1]["status"], "skipped", "{fits:?}");
    assert!(
        fits[1]["reason"].as_str().unwrap().contains("scratch"),
        "{fits:?}"
    );
    let skipped = r["checks"][1]["candidates"].as_array().unwrap();
    for c in skipped {
        assert_eq!(c["status"], "skipped", "{c}");
        let why = c["reason"].as_str().unwrap();
        assert!(
            why.contains("above --max-memory 512.0 MiB") && why.contains("verification"),
            "{c}"
        );
    }
}
