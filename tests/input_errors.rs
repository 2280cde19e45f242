//! Bad inputs and options under `mpirun -np 3`: each must be found before
//! measuring, reported once by rank 0 with what is wrong (and for a file,
//! where), and end every rank with the input status 2 within seconds.

mod common;
use common::*;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const PROCESSES: usize = 3;
/// Launches at a time: mpirun mostly waits, so more than the cores.
const PARALLEL: usize = 8;
const LIMIT: Duration = Duration::from_secs(20);
/// Status of a usage or input error (`Exit::Input`).
const INPUT_STATUS: i32 = 2;

/// A valid input, for the cases whose fault is in the options.
const GOOD: &str = "budget: 10ms\nrounds: 10\nchecks:\n  - collective: allreduce\n    sizes: [8]\n";
/// The line of GOOD's check.
const GOOD_LINE: usize = 4;

/// One bad input. In `args` and `expect`, `{file}` is this case's YAML,
/// `{good}` a valid input, `{dir}` the scratch directory and `{out}` an
/// output directory of the case's own.
struct Case {
    name: &'static str,
    yaml: Option<&'static str>,
    args: Vec<&'static str>,
    /// `Some(n)`: the message must start with `FILE:n:` for the `{file}` or
    /// `{good}` the arguments name.
    line: Option<usize>,
    /// Substrings of the message that name the problem.
    expect: Vec<&'static str>,
}

/// `pgcheck run` on a bad file whose error is at `line`.
fn file(name: &'static str, yaml: &'static str, line: usize, expect: &[&'static str]) -> Case {
    file_and_options(name, yaml, &[], line, expect)
}

/// `pgcheck run` on a file that `options` make wrong at `line`.
fn file_and_options(
    name: &'static str,
    yaml: &'static str,
    options: &[&'static str],
    line: usize,
    expect: &[&'static str],
) -> Case {
    let mut args = vec!["run", "{file}", "--output", "{out}"];
    args.extend_from_slice(options);
    Case {
        name,
        yaml: Some(yaml),
        args,
        line: Some(line),
        expect: expect.to_vec(),
    }
}

/// `pgcheck run` on the good file with bad `options`.
fn options(name: &'static str, options: &[&'static str], expect: &[&'static str]) -> Case {
    let mut args = vec!["run", "{good}", "--output", "{out}"];
    args.extend_from_slice(options);
    Case {
        name,
        yaml: None,
        args,
        line: None,
        expect: expect.to_vec(),
    }
}

/// `pgcheck ARGS` as given.
fn command(name: &'static str, args: &[&'static str], expect: &[&'static str]) -> Case {
    Case {
        name,
        yaml: None,
        args: args.to_vec(),
        line: None,
        expect: expect.to_vec(),
    }
}

impl Case {
    /// The error must name the line of the good file's check.
    fn at_good_line(mut self) -> Case {
        self.line = Some(GOOD_LINE);
        self
    }
}

fn corpus() -> Vec<Case> {
    vec![
        // The YAML itself.
        file("malformed_bracket", "checks:\n  - collective: allreduce\n    sizes: [8, 64]]\n", 3, &["did not find expected key"]),
        file("malformed_quote", "checks:\n  - collective: \"allreduce\n    sizes: [8]\n", 4, &["found unexpected end of stream", "quoted scalar"]),
        file("malformed_indent", "checks:\n  - collective: allreduce\n    sizes: [8]\n   - collective: bcast\n", 4, &["did not find expected '-' indicator"]),
        file("tab_indent", "checks:\n\t- collective: allreduce\n", 2, &["cannot start any token"]),
        file("empty_file", "# nothing yet\n", 1, &["the file is empty"]),
        file("not_a_mapping", "- allreduce\n- bcast\n", 1, &["expected a mapping with `checks`"]),
        file("check_not_a_mapping", "budget: 1s\nchecks: [allreduce]\n", 2, &["expected a check"]),
        file("duplicate_key", "budget: 1s\nbudget: 2s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 2, &["duplicate field `budget`"]),
        // Keys.
        file("unknown_top_key", "budgt: 1s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 1, &["unknown field `budgt`", "did you mean `budget`"]),
        file("unknown_check_key", "checks:\n  - collective: bcast\n    sizes: [8]\n    roots: 1\n", 4, &["unknown field `roots`", "did you mean `root`"]),
        file("missing_checks", "budget: 1s\nrounds: 2\n", 1, &["missing field `checks`"]),
        file("empty_checks", "budget: 1s\nchecks: []\n", 2, &["`checks` is empty"]),
        file("missing_sizes", "checks:\n  - collective: allreduce\n", 2, &["(allreduce): `sizes` is missing: the sizes to check (only a barrier has none)"]),
        // Names.
        file("unknown_collective", "checks:\n  - collective: allreduc\n    sizes: [8]\n", 2, &["unknown collective `allreduc`", "did you mean `allreduce`"]),
        file("unknown_competitor", "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [allreduce_as_reduce_bcst]\n", 2, &["unknown competitor of allreduce `allreduce_as_reduce_bcst`", "did you mean `allreduce_as_reduce_bcast`"]),
        file("competitor_of_another", "checks:\n  - collective: bcast\n    sizes: [8]\n    competitors: [allreduce_as_reduce_bcast]\n", 2, &["`allreduce_as_reduce_bcast` is a competitor of allreduce"]),
        file("competitor_twice", "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [allreduce_as_reduce_bcast, allreduce_as_reduce_bcast]\n", 2, &["listed twice"]),
        file("unknown_datatype", "datatype: flot64\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 1, &["unknown datatype `flot64`", "did you mean `float64`"]),
        file("unknown_op", "checks:\n  - collective: allreduce\n    sizes: [8]\n    op: summ\n", 4, &["unknown op `summ`", "did you mean `sum`"]),
        file("competitors_keyword", "checks:\n  - collective: bcast\n    sizes: [8]\n    competitors: some\n", 4, &["competitors must be `all`, `library` or a list of names, not `some`"]),
        file("competitors_number", "checks:\n  - collective: bcast\n    sizes: [8]\n    competitors: 3\n", 4, &["expected `all`, `library` or a list of competitor names"]),
        // Checks.
        file("duplicate_check", "checks:\n  - collective: allreduce\n    sizes: [8, 64]\n  - collective: allreduce\n    sizes: [64]\n", 4, &["duplicate check", "already at line 2"]),
        file("root_outside", "checks:\n- collective: allreduce\n  sizes: [8]\n- collective: bcast\n  sizes: [8]\n  root: 7\n", 4, &["root 7 is outside the communicator of 3 processes"]),
        file("root_without_root", "checks:\n  - collective: allreduce\n    sizes: [8]\n    root: 1\n", 2, &["`root` applies only to bcast, gather, reduce and scatter"]),
        file("root_a_list", "checks:\n  - collective: bcast\n    sizes: [8]\n    root: [0]\n", 4, &["root", "invalid type: sequence"]),
        file("root_negative", "checks:\n  - collective: bcast\n    sizes: [8]\n    root: -1\n", 4, &["root must be an integer of at least 0, not `-1`"]),
        file("bitwise_on_float", "datatype: float64\nop: band\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 4, &["op `band` is not defined for datatype `float64`"]),
        file("default_op_on_float", "datatype: float32\nchecks:\n  - collective: scan\n    sizes: [8]\n", 3, &["op `bor` is not defined for datatype `float32`", "set `op:`"]),
        file("blocks_without_bcast", "checks:\n  - collective: allreduce\n    sizes: [8]\n    blocks: 4\n", 2, &["`blocks` applies only to bcast"]),
        // Sizes.
        file("sizes_a_mapping", "checks:\n  - collective: allreduce\n    sizes: {small: 8}\n", 3, &["sizes", "expected a list of sizes, like [8, 1KiB, 4K:1M], or the same as text"]),
        file("size_unknown_unit", "checks:\n  - collective: allreduce\n    sizes: [8, 1X]\n", 3, &["checks[0].sizes[1]: unknown unit `X` in `1X` (use B, K or KiB, M or MiB, G or GiB; K is 1024 bytes)"]),
        file("size_range_down", "checks:\n  - collective: allreduce\n    sizes:\n      - 8\n      - 1M:4K\n", 5, &["range `1M:4K` ends below its start: write the smaller size first"]),
        file("size_in_a_range_twice", "checks:\n  - collective: allreduce\n    sizes: 8, 8:64\n", 3, &["size 8 is listed twice"]),
        file("sizes_empty", "checks:\n  - collective: allreduce\n    sizes: []\n", 3, &["at least one size"]),
        file("size_zero", "checks:\n  - collective: allreduce\n    sizes:\n      - 8\n      - 0\n", 5, &["size 0 must be a positive number of bytes"]),
        file("size_negative", "checks:\n  - collective: allreduce\n    sizes: [-8]\n", 3, &["size -8 must be a positive number of bytes"]),
        file("size_fraction", "checks:\n  - collective: allreduce\n    sizes: [8.5]\n", 3, &["size `8.5` must be a positive whole number of bytes"]),
        file("size_twice", "checks:\n  - collective: allreduce\n    sizes: [8, 16, 8]\n", 3, &["size 8 is listed twice"]),
        file("size_not_multiple", "datatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8, 6]\n", 4, &["size 6 is not a multiple of the 4-byte datatype `int32`"]),
        file("size_absurd", "checks:\n  - collective: bcast\n    sizes: [1000000000000000]\n", 2, &["1000000000000000 elements of `byte`", "more than an MPI count can hold"]),
        file("block_absurd", "datatype: float64\nchecks:\n  - collective: allgather\n    sizes: [17179869184]\n", 3, &["2147483648 elements of `float64` per process", "more than an MPI count can hold"]),
        // Settings in the file.
        file("budget_zero", "budget: 0\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 1, &["budget", "must be positive"]),
        file("budget_negative", "rounds: 2\nbudget: -2s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 2, &["budget `-2s` must be positive"]),
        file("budget_unparsable", "budget: soon\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 1, &["budget", "`soon` is not a duration"]),
        file("rounds_zero", "budget: 1s\nrounds: 0\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 2, &["rounds must be an integer of at least 1, not `0`"]),
        file("ppn_zero", "ppn: 0\nchecks:\n  - collective: allreduce\n    sizes: [8]\n", 1, &["ppn must be an integer of at least 1"]),
        // Files and the command line.
        command("missing_file", &["run", "{dir}/no-such-input.yaml", "--output", "{out}"], &["{dir}/no-such-input.yaml: cannot read", "No such file"]),
        command("input_is_a_directory", &["run", "{dir}", "--output", "{out}"], &["{dir}: cannot read", "directory"]),
        options("ppn_zero_option", &["--ppn", "0"], &["--ppn 0 does not divide the 3 processes"]),
        options("ppn_not_dividing", &["--ppn", "2"], &["--ppn 2 does not divide the 3 processes"]),
        command("output_unwritable", &["run", "{good}", "--output", "/proc/pgcheck"], &["output directory /proc/pgcheck"]),
        options("override_bitwise_on_float", &["--datatype", "float32", "--op", "bor"], &["op `bor` is not defined for datatype `float32`"]).at_good_line(),
        file_and_options("override_not_multiple", "checks:\n  - collective: allreduce\n    sizes: [12]\n", &["--datatype", "int64", "--op", "sum"], 2, &["size 12 is not a multiple", "`int64`"]),
        // One check on the command line: errors name the options, not a file.
        command("options_size_twice", &["run", "--collective", "allreduce", "--sizes", "8,1K,512:2K", "--output", "{out}"], &["error: invalid value '8,1K,512:2K' for '--sizes <LIST>': size 1024 is listed twice\n"]),
        command("options_root_not_rooted", &["run", "--collective", "allreduce", "--sizes", "8", "--root", "1", "--output", "{out}"], &["error: --root applies only to bcast, gather, reduce and scatter\n"]),
        command("options_root_outside", &["run", "--collective", "bcast", "--sizes", "8", "--root", "7", "--output", "{out}"], &["error: root 7 is outside the communicator of 3 processes\n"]),
        command("options_not_multiple", &["run", "--collective", "allreduce", "--sizes", "1K,6", "--datatype", "int32", "--op", "sum", "--output", "{out}"], &["error: size 6 is not a multiple of the 4-byte datatype `int32`\n"]),
        command("options_float_default_op", &["run", "--collective", "allreduce", "--sizes", "8", "--datatype", "float64", "--output", "{out}"], &["(give --op, the default is bor)"]),
        command("options_unknown_competitor", &["run", "--collective", "bcast", "--sizes", "8", "--competitors", "bcast_as_scatter_allgathr", "--output", "{out}"], &["unknown competitor of bcast `bcast_as_scatter_allgathr` (did you mean `bcast_as_scatter_allgather`?)"]),
        // `pgcheck verify`.
        command("verify_bad_file", &["verify", "{file}"], &["unknown collective `scater`", "did you mean `scatter`"]).with_file("checks:\n  - collective: scater\n    sizes: [8]\n", 2),
        command("verify_unknown_collective", &["verify", "--collective", "allreduc"], &["unknown collective `allreduc`", "did you mean `allreduce`"]),
        command("verify_unknown_competitor", &["verify", "--competitor", "bcast_as_scatter_allgathr"], &["unknown competitor `bcast_as_scatter_allgathr`", "did you mean `bcast_as_scatter_allgather`"]),
        command("verify_root_outside", &["verify", "--collective", "bcast", "--roots", "7"], &["root 7 is outside the communicator of 3 processes"]),
        command("verify_root_unknown", &["verify", "--collective", "bcast", "--roots", "centre"], &["root `centre` is not a rank"]),
        command("verify_size_not_multiple", &["verify", "--collective", "bcast", "--sizes", "6", "--datatype", "int32"], &["size 6 is not a multiple"]),
        // A test that cannot reach significance with the rounds given.
        options("powerless_rounds", &["--rounds", "3", "--test", "rounds"], &["with 3 rounds the rounds test cannot flag a violation of allreduce 8 B", "use --rounds 5 or more", "--allow-powerless"]),
        // Holm over allreduce's 7 built-in competitors (the communicator family made 5 into 7).
        options("powerless_paired", &["--rounds", "6", "--test", "paired"], &["with 6 rounds the paired test cannot flag", "use --rounds 8 or more"]),
        command("verify_bitwise_on_float", &["verify", "--collective", "allreduce", "--datatype", "float64", "--op", "bxor"], &["op `bxor` is not defined for datatype `float64`"]),
    ]
}

/// Errors clap finds: pgcheck exits before MPI starts.
fn usage_errors() -> Vec<Case> {
    vec![
        command(
            "unknown_subcommand",
            &["measure", "{good}"],
            &["unrecognized subcommand 'measure'"],
        ),
        command(
            "in_place_of_bcast",
            &["run", "--collective", "bcast", "--sizes", "8", "--in-place", "both"],
            &["--in-place applies to every blocking collective but bcast"],
        ),
        command(
            "options_size_unknown_unit",
            &["run", "--collective", "allreduce", "--sizes", "8,1X"],
            &["error: invalid value '8,1X' for '--sizes <LIST>': unknown unit `X` in `1X` (use B, K or KiB, M or MiB, G or GiB; K is 1024 bytes)\n"],
        ),
        command(
            "options_size_zero",
            &["run", "--collective", "allreduce", "--sizes", "0:8"],
            &["error: invalid value '0:8' for '--sizes <LIST>': size `0` must be a positive whole number of bytes\n"],
        ),
        command(
            "options_size_range_factor",
            &["run", "--collective", "allreduce", "--sizes", "4K:1M:1"],
            &["error: invalid value '4K:1M:1' for '--sizes <LIST>': range `4K:1M:1`: the factor `1` must be a whole number of at least 2\n"],
        ),
        command(
            "options_unknown_collective",
            &["run", "--collective", "allreduc", "--sizes", "8"],
            &["error: invalid value 'allreduc' for '--collective <NAME>': unknown collective `allreduc` (did you mean `allreduce`?)"],
        ),
        options(
            "options_and_a_file",
            &["--collective", "allreduce", "--sizes", "8"],
            &["the argument '[INPUT]' cannot be used with:\n  --collective <NAME>\n  --sizes <LIST>"],
        ),
        command(
            "options_without_sizes",
            &["run", "--collective", "allreduce"],
            &["error: --sizes is missing: the sizes to check (only a barrier has none)"],
        ),
        command(
            "verify_size_unknown_unit",
            &["verify", "--collective", "bcast", "--sizes", "1kB"],
            &["error: invalid value '1kB' for '--sizes <LIST>': unknown unit `kB` in `1kB`"],
        ),
        options(
            "unknown_option",
            &["--colour", "never"],
            &["unexpected argument '--colour'"],
        ),
        options(
            "budget_zero_option",
            &["--budget", "0"],
            &["invalid value '0' for '--budget", "must be positive"],
        ),
        options(
            "budget_negative_option",
            &["--budget=-1s"],
            &["invalid value '-1s' for '--budget"],
        ),
        options(
            "budget_unparsable_option",
            &["--budget", "soon"],
            &["invalid value 'soon' for '--budget", "not a duration"],
        ),
        options(
            "alpha_zero",
            &["--alpha", "0"],
            &["invalid value '0' for '--alpha", "between 0 and 1"],
        ),
        options(
            "alpha_above_one",
            &["--alpha", "1.5"],
            &["invalid value '1.5' for '--alpha"],
        ),
        options(
            "alpha_text",
            &["--alpha", "often"],
            &["invalid value 'often' for '--alpha"],
        ),
        options(
            "fail_on_unknown",
            &["--fail-on", "worst"],
            &["invalid value 'worst' for '--fail-on", "very-high"],
        ),
        options(
            "test_unknown",
            &["--test", "median"],
            &["invalid value 'median' for '--test"],
        ),
        options(
            "max_memory_zero",
            &["--max-memory", "0"],
            &["invalid value '0' for '--max-memory", "at least one byte"],
        ),
    ]
}

impl Case {
    /// Also writes `yaml` as `{file}`, whose error is at `line`.
    fn with_file(mut self, yaml: &'static str, line: usize) -> Case {
        self.yaml = Some(yaml);
        self.line = Some(line);
        self
    }
}

/// Runs `case` in `dir`; `Err` says what is wrong with its outcome.
fn check(dir: &Path, case: &Case) -> Result<(), String> {
    let path = dir.join(format!("{}.yaml", case.name));
    let good = dir.join("good.yaml");
    let out = dir.join(format!("out-{}", case.name));
    let fill = |s: &str| {
        s.replace("{file}", &path.to_string_lossy())
            .replace("{good}", &good.to_string_lossy())
            .replace("{out}", &out.to_string_lossy())
            .replace("{dir}", &dir.to_string_lossy())
    };
    if let Some(yaml) = case.yaml {
        std::fs::write(&path, yaml).unwrap();
    }
    let args: Vec<String> = case.args.iter().map(|a| fill(a)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = Launch::tagged(PROCESSES, &args).timeout(LIMIT).run();
    let stderr = untagged(&outcome.stderr);
    let mut problems = Vec::new();
    if outcome.code != Some(INPUT_STATUS) {
        problems.push(format!("status {:?}, not {INPUT_STATUS}", outcome.code));
    }
    if outcome.seconds >= LIMIT.as_secs_f64() {
        problems.push(format!("took {:.1} s", outcome.seconds));
    }
    let ranks = ranks_in(&format!("{}{}", outcome.stdout, outcome.stderr));
    if ranks.iter().any(|&r| r != 0) {
        problems.push(format!("ranks {ranks:?} printed; only rank 0 may"));
    }
    if !untagged(&outcome.stdout).trim().is_empty() {
        problems.push("printed to stdout".into());
    }
    let errors = stderr.matches("error:").count();
    if errors != 1 {
        problems.push(format!("{errors} `error:` messages, not one"));
    }
    if let Some(line) = case.line {
        let file = if case.args.contains(&"{good}") {
            &good
        } else {
            &path
        };
        let at = format!("{}:{line}: ", file.display());
        if !stderr.contains(&at) {
            problems.push(format!("no `{at}`"));
        }
    }
    for expect in &case.expect {
        let expect = fill(expect);
        if !stderr.contains(&expect) {
            problems.push(format!("no `{expect}`"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}\n{}",
            case.name,
            problems.join("; "),
            outcome.text()
        ))
    }
}

/// A scratch directory with the good input in it.
fn prepare(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    input(&dir, "good.yaml", GOOD);
    dir
}

/// Runs `cases` in a scratch directory `name`, several at a time, and
/// fails with every case that went wrong.
fn assert_all(name: &str, cases: &[Case]) {
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are distinct");
    let dir = prepare(name);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..PARALLEL {
            s.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = check(&dir, case) {
                        failures.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs were handled wrongly:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_bad_input_ends_every_rank_with_one_message() {
    assert_all("input-errors", &corpus());
}

/// Ranks 1.. exit with status 2 at once, and mpirun then kills the job,
/// sometimes before rank 0 has printed (about 1 launch in 40 here). Fix:
/// let the other ranks wait for rank 0 (e.g. MPI_Init, rank 0 prints,
/// MPI_Finalize on all) before exiting.
#[test]
fn every_usage_error_ends_every_rank_with_one_message() {
    for _ in 0..3 {
        assert_all("usage-errors", &usage_errors());
    }
}

/// Runs one case on its own (for the known failures below).
fn assert_case(case: Case) {
    let dir = prepare(&format!("input-errors-{}", case.name));
    if let Err(e) = check(&dir, &case) {
        panic!("{e}");
    }
}

#[test]
fn rounds_zero_option() {
    assert_case(options(
        "rounds_zero_option",
        &["--rounds", "0"],
        &["--rounds", "0"],
    ));
}

#[test]
fn ppn_from_the_file_not_dividing() {
    assert_case(file(
        "ppn_file_not_dividing",
        "ppn: 2\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
        1,
        &["ppn 2 does not divide the 3 processes"],
    ));
}

#[test]
fn override_makes_the_count_too_large() {
    assert_case(file_and_options(
        "override_count_too_large",
        "datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8589934592]\n",
        &["--datatype", "byte"],
        4,
        &["more than an MPI count can hold"],
    ));
}

#[test]
fn verify_size_too_large() {
    assert_case(command(
        "verify_size_too_large",
        &["verify", "--collective", "bcast", "--sizes", "3000000000"],
        &["more than an MPI count can hold"],
    ));
}
