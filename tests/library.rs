//! Family `library`: the library's own algorithms, forced through MPI_T.
//! Verified like every candidate at many process counts and sizes; the
//! probe (`tests/faults/mpit_probe.c`) shows that the forced algorithm is
//! the one that runs and that every variable is back as it was at the end.

mod common;
use common::faults::with_probe;
use common::*;
use std::path::Path;

/// Open MPI 4.1 lets the tuned component use a forced algorithm only when
/// the run starts with dynamic rules on (MPI_T cannot switch them on).
fn library_launch(np: usize, args: &[&str]) -> Launch {
    Launch::new(np, args).env("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")
}

/// `verify ARGS` on `np` processes with dynamic rules on; it must pass.
fn assert_library_verifies(np: usize, args: &[&str]) -> Outcome {
    let mut all = vec!["verify", "--family", "library"];
    all.extend_from_slice(args);
    let around = around_mpich_in_place_reduce_crash();
    let out = with_env(library_launch(np, &all), &around).run();
    assert_eq!(
        out.code,
        Some(0),
        "verify -np {np} {args:?}:\n{}",
        out.text()
    );
    // Consistent counts, `default` verified in every case; the callers
    // say how many library rows must have passed.
    let counts = VerifyCounts::of(&out);
    assert_eq!(counts.failed, 0, "{}", out.text());
    out
}

#[test]
#[cfg_attr(
    mpi = "impi",
    ignore = "Intel MPI has no algorithms to force (intel_mpi_s_algorithms_are_refused_with_the_reason)"
)]
fn the_library_algorithms_are_listed() {
    let out = Launch::new(1, &["list"]).run();
    // Both Open MPI and MPICH have a recursive-doubling allreduce.
    out.expect_in_stdout("allreduce_as_library_recursive_doubling", "");
    assert!(
        !out.stdout.contains("_as_library_ignore") && !out.stdout.contains("_as_library_auto"),
        "the library's own choice is `default`, not a competitor:\n{}",
        out.text()
    );
}

#[test]
#[cfg_attr(
    mpi = "impi",
    ignore = "Intel MPI has no algorithms to force (intel_mpi_s_algorithms_are_refused_with_the_reason)"
)]
fn library_algorithms_match_the_reference_at_many_process_counts() {
    // 0 and 1 element, fewer elements than processes, not divisible by them.
    for np in [1, 2, 3, 4, 5, 8] {
        let out = assert_library_verifies(np, &["--sizes", "0,1,7,1000", "--roots", "first,last"]);
        if np > 1 {
            // Passed and measured, not skipped: the switch works here.
            let passed = out
                .stdout
                .lines()
                .filter(|l| l.contains("_as_library_") && l.contains(" pass "))
                .count();
            assert!(
                passed >= 20,
                "np {np}: only {passed} library rows passed:\n{}",
                out.text()
            );
        }
    }
}

#[test]
#[cfg_attr(
    mpi = "impi",
    ignore = "Intel MPI has no algorithms to force (intel_mpi_s_algorithms_are_refused_with_the_reason)"
)]
fn library_algorithms_match_with_other_datatypes_and_operators() {
    for (np, datatype, op) in [
        (4, "float64", "sum"),
        (3, "int32", "max"),
        (6, "int64", "bxor"),
    ] {
        assert_library_verifies(
            np,
            &[
                "--datatype",
                datatype,
                "--op",
                op,
                "--collective",
                "allreduce,reduce,reduce_scatter,scan",
            ],
        );
    }
}

#[test]
#[cfg_attr(
    not(mpi = "openmpi"),
    ignore = "Open MPI 4 only: Open MPI 5 switches dynamic rules on through MPI_T, MPICH has none"
)]
fn open_mpi_4_without_dynamic_rules_says_how_to_start_the_run() {
    let out = pgcheck(
        2,
        &[
            "verify",
            "--family",
            "library",
            "--collective",
            "allreduce",
            "--sizes",
            "8",
        ],
    );
    assert!(
        library().starts_with("Open MPI 4."),
        "built for Open MPI 4, run on {}",
        library()
    );
    assert_eq!(out.code, Some(0), "{}", out.text());
    out.expect_in_stdout(
        "start the run with OMPI_MCA_coll_tuned_use_dynamic_rules=1",
        "",
    );
    // The table's rows; each skip's reason follows the table.
    let library_rows = out
        .stdout
        .lines()
        .filter(|l| l.starts_with('|') && l.contains("_as_library_"));
    assert!(
        library_rows.clone().count() >= 5 && library_rows.clone().all(|l| l.contains(" skipped ")),
        "{}",
        out.text()
    );
}

/// `verify` of one allreduce competitor at 64 KiB on 4 processes, with the probe.
fn probed(competitor: &str) -> Outcome {
    let launch = library_launch(
        4,
        &[
            "verify",
            "--collective",
            "allreduce",
            "--competitor",
            competitor,
            "--sizes",
            "65536",
        ],
    );
    let out = with_probe(launch).run();
    assert_eq!(out.code, Some(0), "{}", out.text());
    // A library algorithm is verified in its one case (others, such as
    // lane on one node, may be skipped).
    let counts = VerifyCounts::of(&out);
    let row = counts.rows[&("allreduce".to_string(), competitor.to_string())];
    if competitor.contains("_as_library_") {
        assert_eq!(row, (1, 0, 0), "{competitor}: verified in its one case");
    } else {
        assert_eq!(row.1, 0, "{competitor}");
    }
    out
}

#[test]
#[cfg_attr(
    mpi = "impi",
    ignore = "Intel MPI has no algorithms to force (intel_mpi_s_algorithms_are_refused_with_the_reason)"
)]
fn the_forced_algorithm_is_the_one_that_runs_and_everything_is_restored() {
    if is_open_mpi() {
        // Open MPI's tuned component calls the coll/base function of the
        // algorithm; `default` at 64 KiB on 4 processes calls neither of
        // the two below, so each shows up only when forced.
        let runs = |out: &Outcome, f: &str| {
            out.stderr
                .contains(&format!("probe: ran ompi_coll_base_allreduce_intra_{f} "))
        };
        let linear = probed("allreduce_as_library_basic_linear");
        let nonoverlapping = probed("allreduce_as_library_nonoverlapping");
        let neither = probed("allreduce_as_allreduce_lane");
        assert!(runs(&linear, "basic_linear"), "{}", linear.text());
        assert!(!runs(&linear, "nonoverlapping"), "{}", linear.text());
        assert!(
            runs(&nonoverlapping, "nonoverlapping"),
            "{}",
            nonoverlapping.text()
        );
        assert!(
            !runs(&nonoverlapping, "basic_linear"),
            "{}",
            nonoverlapping.text()
        );
        assert!(
            !runs(&neither, "basic_linear") && !runs(&neither, "nonoverlapping"),
            "{}",
            neither.text()
        );
        for out in [&linear, &nonoverlapping, &neither] {
            out.expect_in_stderr("probe: restored", "every algorithm variable is back");
            assert!(!out.stderr.contains("NOT restored"), "{}", out.text());
        }
    } else {
        // MPICH reads its variable at each call: the value seen by the
        // call is the algorithm it runs.
        let forced = probed("allreduce_as_library_recursive_doubling");
        forced.expect_in_stderr(
            "probe: MPI_Allreduce with MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=3",
            "forced",
        );
        forced.expect_in_stderr(
            "probe: MPI_Allreduce with MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=0",
            "default",
        );
        forced.expect_in_stderr("probe: restored", "every algorithm variable is back");
        assert!(!forced.stderr.contains("NOT restored"), "{}", forced.text());
    }
}

/// Open MPI's tuned allreduce algorithms (the `library` family's items)
/// and their coll/base functions.
const ALLREDUCE_FUNCTIONS: [(&str, &str); 6] = [
    ("basic_linear", "basic_linear"),
    ("nonoverlapping", "nonoverlapping"),
    ("recursive_doubling", "recursivedoubling"),
    ("ring", "ring"),
    ("segmented_ring", "ring_segmented"),
    ("rabenseifner", "redscat_allgather"),
];

/// The coll/base allreduce functions the probe saw run on rank 0 with at
/// least `min_count` elements: the checked collective's calls, not
/// pgcheck's own small ones.
fn allreduce_functions_run(out: &Outcome, min_count: u64) -> std::collections::BTreeSet<String> {
    out.stderr
        .lines()
        .filter_map(|l| l.strip_prefix("probe: ran ompi_coll_base_allreduce_intra_"))
        .filter_map(|l| l.split_once(" count "))
        .filter(|(_, count)| count.trim().parse::<u64>().is_ok_and(|c| c >= min_count))
        .map(|(function, _)| function.to_string())
        .collect()
}

/// A control run first, without the rules file, shows the algorithm Open
/// MPI picks itself for the 64 KiB allreduce; `tune` then chooses among
/// the others (`default` slowed 3×: each is significantly faster), so
/// that the confirmation run, which runs the chosen one, differs from the
/// control only by the file.
/// MPI_T starts only for an input that asks for the library's algorithms
/// (Open MPI 4 spends 0.2 s starting it): the run's record of them is
/// empty without, and holds them with `competitors: library`.
#[test]
#[cfg_attr(
    mpi = "impi",
    ignore = "Intel MPI has no algorithms to force (intel_mpi_s_algorithms_are_refused_with_the_reason)"
)]
fn the_library_is_asked_for_its_algorithms_only_when_the_input_names_them() {
    let dir = scratch("library-lazy");
    let recorded = |competitors: &str| {
        let input = dir.join(format!("{}.yaml", competitors.len()));
        std::fs::write(
            &input,
            format!(
                "budget: 20ms\nrounds: 4\nchecks:\n  - collective: allreduce\n    sizes: [64]\n    competitors: {competitors}\n"
            ),
        )
        .unwrap();
        let out_dir = dir.join(format!("run-{}", competitors.len()));
        let out = library_launch(
            2,
            &[
                "run",
                input.to_str().unwrap(),
                "--allow-powerless",
                "--output",
                out_dir.to_str().unwrap(),
            ],
        )
        .report_only()
        .run();
        assert_eq!(out.code, Some(0), "{}", out.text());
        results(&out_dir)["meta"]["library_algorithms"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(recorded("[allreduce_as_reduce_bcast]"), 0);
    assert!(recorded("library") > 0, "Open MPI and MPICH have some");
}

#[test]
#[cfg_attr(
    any(not(mpi_family = "openmpi"), not(feature = "testing")),
    ignore = "Open MPI's rules file (MPICH's selection file is tested below), with the testing feature"
)]
fn tune_writes_rules_that_open_mpi_follows_in_the_confirmation_run() {
    assert!(is_open_mpi());
    let dir = scratch("library-tune");
    let input = |name: &str, competitors: &str| {
        let path = dir.join(name);
        let text = format!(
            "budget: 100ms\nrounds: 10\nsync: barrier\nchecks:\n  - collective: allreduce\n    sizes: [65536]\n    competitors: {competitors}\n"
        );
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (control, first, tuned) = (dir.join("control"), dir.join("first"), dir.join("tuned"));
    let rules = dir.join("rules.conf");
    let confirm_input = input("confirm.yaml", "[allreduce_as_reduce_bcast]");
    // With the rules: against the first run as its baseline.
    let confirm = |out_dir: &Path, rules: Option<&Path>| {
        let mut args = vec!["run", &confirm_input, "--output", out_dir.to_str().unwrap()];
        if rules.is_some() {
            args.extend(["--baseline", first.to_str().unwrap()]);
        }
        let mut launch = library_launch(4, &args);
        if let Some(rules) = rules {
            launch = launch.env(
                "OMPI_MCA_coll_tuned_dynamic_rules_filename",
                rules.to_str().unwrap(),
            );
        }
        with_probe(launch).run()
    };
    // 65536 bytes: the checked call's count; pgcheck's own allreduces
    // are of a few elements.
    let own_choice = allreduce_functions_run(&confirm(&control, None), 65536);
    assert_eq!(own_choice.len(), 1, "Open MPI's own choice: {own_choice:?}");
    let others: Vec<&str> = ALLREDUCE_FUNCTIONS
        .iter()
        .filter(|(_, function)| !own_choice.contains(*function))
        .map(|(item, _)| *item)
        .collect();
    assert_eq!(
        others.len(),
        ALLREDUCE_FUNCTIONS.len() - 1,
        "{own_choice:?}"
    );
    let competitors = others
        .iter()
        .map(|item| format!("allreduce_as_library_{item}"))
        .collect::<Vec<_>>()
        .join(", ");
    let out = library_launch(
        4,
        &[
            "run",
            &input("library.yaml", &format!("[{competitors}]")),
            "--output",
            first.to_str().unwrap(),
        ],
    )
    .report_only()
    .env("PGCHECK_TEST_SLOW_DEFAULT", "3")
    .run();
    assert!(first.join("results.json").exists(), "{}", out.text());
    let tune = Launch::new(
        1,
        &[
            "tune",
            first.to_str().unwrap(),
            "--output",
            rules.to_str().unwrap(),
        ],
    )
    .run();
    assert_eq!(tune.code, Some(0), "{}", tune.text());
    tune.expect_in_stdout("coll_tuned_dynamic_rules_filename=", "how to load it");
    let file = std::fs::read_to_string(&rules).unwrap();
    let rule = file
        .lines()
        .find(|l| l.starts_with("0 "))
        .unwrap_or_else(|| panic!("no rule from size 0:\n{file}\n{}", tune.text()));
    let item = rule.split("# ").nth(1).unwrap().trim();
    assert!(others.contains(&item), "{item} is not among {others:?}");
    assert!(
        file.contains("2  # MPI_Allreduce\n1  # communicator sizes\n4  # processes\n"),
        "{file}"
    );
    // The confirmation run: the library's own call, now under the rules,
    // runs the chosen algorithm (no library candidate forces it here),
    // and only it.
    let confirmed = confirm(&tuned, Some(&rules));
    confirmed.expect_in_stdout("Baseline", "compared with the first run");
    let function = ALLREDUCE_FUNCTIONS
        .iter()
        .find(|(i, _)| *i == item)
        .map(|(_, f)| f.to_string())
        .unwrap();
    assert_eq!(
        allreduce_functions_run(&confirmed, 65536),
        [function].into(),
        "the rules select {item}\n{}",
        confirmed.text()
    );
}

#[test]
#[cfg_attr(
    any(not(mpi_family = "mpich"), mpi = "impi", not(feature = "testing")),
    ignore = "MPICH's collective-selection JSON, with the testing feature; ci/test-all-mpis runs it"
)]
fn tune_writes_a_selection_file_that_mpich_follows_in_the_confirmation_run() {
    assert!(!is_open_mpi());
    let dir = scratch("library-tune-mpich");
    let input = |name: &str, competitor: &str| {
        let path = dir.join(name);
        let text = format!(
            "budget: 100ms\nrounds: 10\nsync: barrier\ndatatype: int32\nop: sum\nchecks:\n  - collective: reduce\n    sizes: [1024]\n    competitors: [{competitor}]\n"
        );
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (first, tuned, control) = (dir.join("first"), dir.join("tuned"), dir.join("control"));
    let file = dir.join("selection.json");
    // `default` slowed 8×: the nonblocking reduce is significantly faster.
    let out = Launch::new(
        2,
        &[
            "run",
            &input("library.yaml", "reduce_as_library_nb"),
            "--output",
            first.to_str().unwrap(),
        ],
    )
    .report_only()
    .env("PGCHECK_TEST_SLOW_DEFAULT", "8")
    .run();
    assert!(first.join("results.json").exists(), "{}", out.text());
    let tune = Launch::new(
        1,
        &[
            "tune",
            first.to_str().unwrap(),
            "--output",
            file.to_str().unwrap(),
        ],
    )
    .run();
    assert_eq!(tune.code, Some(0), "{}", tune.text());
    tune.expect_in_stdout(
        "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=",
        "how to load it",
    );
    // MPICH's shared-memory layer takes an intra-node reduce after a few
    // calls without asking the tree (MPICH 5 did here): tune hands it back.
    tune.expect_in_stdout(
        "MPIR_CVAR_REDUCE_POSIX_INTRA_ALGORITHM=mpir",
        "the shared-memory layer's fallback to the tree",
    );
    // Everything tune says to load, as the user would set it.
    let load: Vec<(String, String)> = tune
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("load it with:"))
        .skip(1)
        .filter_map(|l| l.trim().split_once('='))
        .filter(|(name, _)| name.starts_with("MPIR_CVAR_"))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // Complete: the library's other collectives are in the file.
    assert!(json.get("collective=allreduce").is_some(), "{json}");
    let reduce = &json["collective=reduce"]["comm_type=intra"]["comm_size<=2"];
    assert_eq!(
        reduce["avg_msg_size=any"],
        serde_json::json!({"algorithm=MPIR_Reduce_allcomm_nb": {}}),
        "{}",
        tune.text()
    );
    // The confirmation run, with MPICH's schedule dump on: the library's own
    // reduce (no library candidate forces it here) now runs the nonblocking
    // algorithm, whose schedules MPICH prints; without the file it does not.
    let confirm = |out_dir: &std::path::Path, load: &[(String, String)]| {
        let mut launch = Launch::new(
            2,
            &[
                "run",
                &input("confirm.yaml", "reduce_as_library_binomial"),
                "--output",
                out_dir.to_str().unwrap(),
                "--baseline",
                first.to_str().unwrap(),
            ],
        )
        .env("MPIR_CVAR_COLL_SCHED_DUMP", "1");
        for (name, value) in load {
            launch = launch.env(name, value);
        }
        with_probe(launch).run()
    };
    let with_file = confirm(&tuned, &load);
    with_file.expect_in_stdout("Violations: ", "compared with the first run's verdicts");
    assert!(
        with_file.text().contains("s->num_entries"),
        "no schedule dump: default did not run the nonblocking reduce\n{}",
        with_file.text()
    );
    with_file.expect_in_stderr("probe: restored", "every algorithm variable is back");
    let without = confirm(&control, &[]);
    assert!(
        !without.text().contains("s->num_entries"),
        "a schedule dump without the file\n{}",
        without.text()
    );
}

/// `(cvar writes, allreduce calls)` from the probe's last line.
fn probe_counts(out: &Outcome) -> (u64, u64) {
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("probe: ") && l.ends_with(" allreduce calls"))
        .unwrap_or_else(|| panic!("no probe counts\n{}", out.text()));
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
#[cfg_attr(
    any(not(mpi_family = "mpich"), mpi = "impi"),
    ignore = "MPICH only (Open MPI's forced algorithm lives in a communicator); ci/test-all-mpis runs it"
)]
fn mpich_s_variable_is_written_around_chunks_not_around_each_timed_call() {
    assert!(!is_open_mpi());
    let dir = scratch("library-switch");
    let input = dir.join("switch.yaml");
    std::fs::write(
        &input,
        "budget: 300ms\nrounds: 5\nsync: barrier\nchecks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [allreduce_as_library_recursive_doubling]\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let launch = Launch::new(
        2,
        &[
            "run",
            input.to_str().unwrap(),
            "--output",
            out_dir.to_str().unwrap(),
        ],
    );
    let out = with_probe(launch).run();
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    let r = results(&out_dir);
    let forced = r["checks"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "allreduce_as_library_recursive_doubling")
        .expect("the candidate's summary")
        .clone();
    let timed = forced["n"].as_u64().unwrap();
    let (writes, calls) = probe_counts(&out);
    // Rank 0's calls that saw the forced value: verification, warm-up,
    // timed calls and the checks between chunks.
    let forced_calls = out
        .stderr
        .lines()
        .filter(|l| *l == "probe: MPI_Allreduce with MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=3")
        .count() as u64;
    assert!(
        forced_calls >= timed,
        "{forced_calls} < {timed}\n{}",
        out.text()
    );
    // Written around each call, the variable takes two writes (set,
    // restore) per forced call; around chunks, two per chunk. No speed is
    // assumed beyond one chunk of two calls or more somewhere in the run
    // (there were 100 in 300 ms, 20 on a machine loaded 5-fold).
    assert!(
        writes < 2 * forced_calls,
        "{writes} writes for {forced_calls} forced calls ({timed} timed, {calls} allreduce calls)\n{}",
        out.text()
    );
    // The timed calls saw the forced value, and it is back at the end.
    out.expect_in_stderr(
        "probe: MPI_Allreduce with MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=3",
        "forced",
    );
    out.expect_in_stderr("probe: restored", "every algorithm variable is back");
    assert!(!out.stderr.contains("NOT restored"), "{}", out.text());
}

/// Intel MPI reads its algorithm selection at MPI_Init only (docs/
/// libraries.md measures it), so `competitors: library` is refused before
/// anything is measured, with the reason and the way to measure a preset;
/// `list` shows no library algorithm.
#[test]
#[cfg_attr(not(mpi = "impi"), ignore = "Intel MPI only; ci/test-all-mpis runs it")]
fn intel_mpi_s_algorithms_are_refused_with_the_reason() {
    let dir = scratch("library-intel");
    let yaml =
        "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [all, library]\n";
    let out = Launch::check(2, &dir, yaml).run();
    out.expect_status(2);
    out.expect_in_stderr("Intel MPI reads its algorithm selection", "the reason");
    out.expect_in_stderr("I_MPI_ADJUST_ALLREDUCE=<preset>", "how to measure one");
    out.expect_in_stderr("ci/tune-presets", "what runs those launches");
    assert!(
        !dir.join("out").join("results.json").exists(),
        "nothing measured"
    );
    let list = Launch::new(1, &["list"]).run();
    list.expect_status(0);
    assert!(!list.stdout.contains("_as_library_"), "{}", list.text());
}
