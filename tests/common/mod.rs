//! Launching the built `pgcheck` under mpirun.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub mod faults;

/// What a launch produced.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
    /// The launcher's process id, which is its process group's too.
    pub pgid: u32,
    /// What was killed at the timeout (the launcher, its process group and
    /// their descendants: [`kill_launch`]); empty when it ended in time.
    pub killed: Vec<u32>,
    /// Where pgcheck was told to write (`--output`, given by
    /// [`Launch::output`] or [`Launch::check`]).
    pub out_dir: Option<PathBuf>,
    /// `out_dir/results.json` if the run wrote a readable one, valid against
    /// the schema ([`results_if_written`]).
    pub results: Option<serde_json::Value>,
}

impl Outcome {
    /// The results.json the run wrote; panics, with the output, if none.
    #[track_caller]
    pub fn results(&self) -> &serde_json::Value {
        self.results
            .as_ref()
            .unwrap_or_else(|| panic!("no readable results.json:\n{}", self.text()))
    }

    /// The output directory given to pgcheck.
    #[track_caller]
    pub fn out_dir(&self) -> &Path {
        self.out_dir
            .as_deref()
            .expect("a launch with an output directory")
    }

    /// Asserts that the exit status is `code`.
    #[track_caller]
    pub fn expect_status(&self, code: i32) {
        assert_eq!(self.code, Some(code), "{}", self.text());
    }

    /// Everything it printed, for assertion messages.
    pub fn text(&self) -> String {
        format!(
            "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// Asserts that standard output holds `needle`; `why` heads the message.
    #[track_caller]
    pub fn expect_in_stdout(&self, needle: &str, why: &str) {
        assert!(
            words(&self.stdout).contains(&words(needle)),
            "{why}\n{}",
            self.text()
        );
    }

    /// Asserts that standard error holds `needle`; `why` heads the message.
    #[track_caller]
    pub fn expect_in_stderr(&self, needle: &str, why: &str) {
        assert!(
            words(&self.stderr).contains(&words(needle)),
            "{why}\n{}",
            self.text()
        );
    }
}

/// `text` with every run of whitespace one space: the report wraps its
/// paragraphs to the terminal's width, so a phrase may span lines.
pub fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// pgcheck's messages in `stderr`, one string each: lines wrapped to the
/// terminal's width continue on lines indented deeper than their first.
pub fn messages(stderr: &str) -> Vec<String> {
    let mut messages: Vec<(usize, String)> = Vec::new();
    for line in stderr.lines() {
        let margin = line.len() - line.trim_start().len();
        match messages.last_mut() {
            Some((first, message)) if margin > *first && !line.trim().is_empty() => {
                *message += " ";
                *message += line.trim_start();
            }
            _ => messages.push((margin, line.to_string())),
        }
    }
    messages.into_iter().map(|(_, message)| message).collect()
}

/// A run's `results.json` in `dir`, if it wrote a readable one; valid
/// against its schema ([`assert_valid`]) when it did.
pub fn results_if_written(dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.json")).ok()?;
    let results = serde_json::from_str(&text).ok()?;
    assert_valid(&dir.join("results.json"), &results);
    Some(results)
}

/// A run's `results.json` in `dir`, valid against its schema
/// ([`assert_valid`]): every test that reads one checks the schema too.
pub fn results(dir: &Path) -> serde_json::Value {
    let path = dir.join("results.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let results = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_valid(&path, &results);
    results
}

/// docs/results.schema.json, compiled once per test binary.
pub fn results_schema() -> &'static jsonschema::Validator {
    static SCHEMA: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.schema.json");
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&schema).expect("the schema is valid JSON Schema")
    })
}

/// What the schema finds wrong in `results`, one line each.
pub fn schema_errors(results: &serde_json::Value) -> Vec<String> {
    results_schema()
        .iter_errors(results)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// `results` (read from `path`) is valid against docs/results.schema.json,
/// which admits no field it does not describe.
pub fn assert_valid(path: &Path, results: &serde_json::Value) {
    let errors = schema_errors(results);
    assert!(
        errors.is_empty(),
        "{} against docs/results.schema.json:\n{}",
        path.display(),
        errors.join("\n")
    );
}

/// A run's observations in `dir` as CSV text with raw.csv.gz's columns:
/// `raw/` (Parquet, read with the parquet crate) rendered as such, else
/// `raw.csv.gz` decompressed (every member), else `raw.csv`.
pub fn raw_text(dir: &Path) -> String {
    use std::io::Read;
    let cases = dir.join("raw");
    if cases.is_dir() {
        let rows = pgcheck::store::raw::read(&cases)
            .unwrap_or_else(|e| panic!("{}: {e:#}", cases.display()));
        let mut text = String::from(
            "run,collective,size_bytes,count,datatype,op,root,candidate,round,valid,ns\n",
        );
        for r in rows {
            let ns = r
                .seconds
                .map(pgcheck::store::raw::csv::nanoseconds)
                .unwrap_or_default();
            text += &format!(
                "{},{},{},{},{},{},{},{},{},{},{ns}\n",
                r.run,
                r.collective.name(),
                r.size_bytes,
                r.count,
                r.datatype.name(),
                r.op.name(),
                r.root,
                r.candidate,
                r.round,
                r.valid
            );
        }
        return text;
    }
    let gz = dir.join("raw.csv.gz");
    if gz.is_file() {
        let file = std::fs::File::open(&gz).unwrap();
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(file)
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
        return text;
    }
    let path = dir.join("raw.csv");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fresh, short directory for one launch's Open MPI session files (the
/// launcher removes what it puts in; the empty directory stays in /tmp).
fn session_root() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("pgcheck-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a session directory");
    dir
}

/// The mpirun to use: `PGCHECK_MPIRUN` (set by ci/env.sh) or `mpirun`.
pub fn mpirun() -> String {
    std::env::var("PGCHECK_MPIRUN").unwrap_or_else(|_| "mpirun".into())
}

/// Whether the launcher is Open MPI's. Panics when the build is for the
/// other family (build.rs's cfg `mpi_family`, from PGCHECK_MPI): the
/// tests ignored for one library would then run against the other.
pub fn is_open_mpi() -> bool {
    static OPEN_MPI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OPEN_MPI.get_or_init(|| {
        // `mpirun (Open MPI) 4.1.4`, or `mpirun.openmpi (OpenRTE) 4.1.4`.
        let open_mpi = Command::new(mpirun())
            .arg("--version")
            .output()
            .map(|o| {
                let text = String::from_utf8_lossy(&o.stdout).to_lowercase();
                text.contains("open mpi") || text.contains("openrte") || text.contains("open-mpi")
            })
            .unwrap_or(false);
        assert_eq!(
            open_mpi,
            cfg!(mpi_family = "openmpi"),
            "{} is not the library the tests were built for (PGCHECK_MPI at build time): \
             source ci/env.sh before cargo",
            mpirun()
        );
        open_mpi
    })
}

/// The CPUs online on this machine.
pub fn online_cpus() -> usize {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    online
        .trim()
        .split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

/// A test that cannot run on this machine: says SKIPPED with `reason` on
/// stderr, and fails when the environment variable `CI` is set, so that a
/// skip never counts as a pass there.
pub fn cannot_run_here(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "cannot run here, and CI is set: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
}

/// The launcher's MPI library and version: `Open MPI 4.1.4`, `MPICH 4.0.2`
/// (from `mpirun --version`; the launcher comes with the library).
pub fn library() -> String {
    static LIBRARY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let out = Command::new(mpirun()).arg("--version").output();
            let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
            let text = text.unwrap_or_default();
            if is_open_mpi() {
                // `mpirun (Open MPI) 5.0.11`, `mpirun.openmpi (OpenRTE) 4.1.4`.
                let first = text.lines().next().unwrap_or("");
                format!(
                    "Open MPI {}",
                    first.split_whitespace().last().unwrap_or("?")
                )
            } else {
                // Hydra: `HYDRA build details:` then `    Version:   4.0.2`.
                let version = text
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("Version:"))
                    .map_or("?", str::trim);
                format!("MPICH {version}")
            }
        })
        .clone()
}

/// A bug of the library under test that makes its own collectives wrong
/// for `datatype` and `op`, which pgcheck must then report.
pub fn known_library_bug(datatype: &str, op: &str) -> Option<&'static str> {
    // MPICH 4.0.2 reduces unsigned integers as signed ones on its yaksa
    // path (pmodels/mpich#6083, fixed by #6085 after 4.0.2): MPI_MAX over
    // uint8 244 and 79 gives 79. A C program calling MPI_Allreduce alone
    // shows the same here; MPICH 5.0.2 is right.
    (library() == "MPICH 4.0.2" && datatype == "byte" && matches!(op, "max" | "min"))
        .then_some("MPICH 4.0.2 reduces unsigned integers as signed (pmodels/mpich#6083)")
}

/// Options of a run whose exit status is not what the test is about: found
/// violations and an undecided run pass, wrong results and failures do not.
pub const REPORT_ONLY: [&str; 3] = ["--fail-on", "none", "--allow-undecided"];

/// The collectives that reduce: a library whose reductions are wrong
/// makes these, and only these, fail.
pub const REDUCTIONS: [&str; 6] = [
    "allreduce",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
];

/// How long a launch of `np` ranks may take before it counts as hung: 300 s,
/// and for MPICH that much per core's worth of ranks. MPICH's ranks
/// busy-poll without yielding, so with more ranks than cores every step
/// of a collective waits for the scheduler (`verify` on 8 ranks of MPICH
/// 5.0.2 on 2 cores ran past 300 s); Open MPI's ranks yield here.
fn launch_timeout(np: usize) -> Duration {
    Duration::from_secs(300 * busy_polling_shares(np) as u64)
}

/// How many ranks that busy-poll share a core: with MPICH `np` over the
/// cores, with Open MPI (whose ranks yield here) 1.
fn busy_polling_shares(np: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match is_open_mpi() {
        true => 1,
        false => np.div_ceil(cores).max(1),
    }
}

/// A launch of `pgcheck` on `np` processes.
pub struct Launch {
    command: Command,
    timeout: Duration,
    /// Open MPI's session root of this launch, removed after it.
    session: Option<PathBuf>,
    /// pgcheck's `--output`, read back after the run.
    output: Option<PathBuf>,
}

impl Launch {
    pub fn new(np: usize, args: &[&str]) -> Launch {
        let mut command = Command::new(mpirun());
        let mut session = None;
        if is_open_mpi() {
            command.args(["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]);
            // Open MPI 4's mpirun races others started at the same moment
            // to create the shared session directory /tmp/ompi.HOST.UID
            // ("mkdir: File exists", orte_init fails): each launch gets a
            // session root of its own.
            // Open MPI 5's launcher (PRRTE) reads its own variable.
            session = Some(session_root());
            let root = session.as_ref().unwrap();
            command
                .env("OMPI_MCA_orte_tmpdir_base", root)
                .env("PRTE_MCA_prte_tmpdir_base", root);
        }
        if is_intel_mpi() {
            // Intel MPI pins every rank by itself; the tests' launches leave
            // ranks unbound unless they ask (`bound`), as with the others.
            command.env("I_MPI_PIN", "0");
        }
        command
            .args(["-np", &np.to_string()])
            .arg(env!("CARGO_BIN_EXE_pgcheck"))
            .args(args)
            .env("NO_COLOR", "1");
        Launch {
            session,
            ..Launch::from_command(command, launch_timeout(np))
        }
    }

    /// Any other command that launches ranks (a script around mpirun).
    pub fn from_command(mut command: Command, timeout: Duration) -> Launch {
        command
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdin(Stdio::null());
        Launch {
            command,
            timeout,
            session: None,
            output: None,
        }
    }

    /// `pgcheck run` of `yaml` (written to `dir/input.yaml`) on `np` ranks,
    /// into `dir/out`: add options with [`Launch::args`].
    pub fn check(np: usize, dir: &Path, yaml: &str) -> Launch {
        let file = input(dir, "input.yaml", yaml);
        Launch::new(np, &["run", &file]).output(&dir.join("out"))
    }

    /// pgcheck writes into `dir` (`--output`), and the run reads its
    /// results.json back.
    pub fn output(mut self, dir: &Path) -> Launch {
        self.command.arg("--output").arg(dir);
        self.output = Some(dir.to_path_buf());
        self
    }

    /// Adds `args` to pgcheck's arguments.
    pub fn args(mut self, args: &[&str]) -> Launch {
        self.command.args(args);
        self
    }

    /// The exit status says only whether something failed ([`REPORT_ONLY`]).
    pub fn report_only(self) -> Launch {
        self.args(&REPORT_ONLY)
    }

    /// The fault library preloaded into the ranks, configured by `spec`
    /// ([`faults::with_fault`]).
    pub fn fault(self, spec: &str) -> Launch {
        faults::with_fault(self, spec)
    }

    /// [`Launch::fault`] with `spec` unless it is `None`.
    pub fn fault_if(self, spec: Option<&str>) -> Launch {
        match spec {
            Some(spec) => self.fault(spec),
            None => self,
        }
    }

    /// The host-lie library preloaded into the ranks, configured by
    /// `settings` ([`faults::with_host_lie`]).
    pub fn host_lie(self, settings: &[(&str, &str)]) -> Launch {
        faults::with_host_lie(self, settings)
    }

    pub fn env(mut self, key: &str, value: &str) -> Launch {
        self.command.env(key, value);
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Launch {
        self.timeout = timeout;
        self
    }

    /// Starts it without waiting, in a process group of its own (as a
    /// batch job or a shell's foreground job runs); output is discarded.
    pub fn spawn(mut self) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        self.command
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mpirun starts")
    }

    /// Adds `arg` to pgcheck's arguments.
    pub fn arg(mut self, arg: &str) -> Launch {
        self.command.arg(arg);
        self
    }

    /// Starts it without waiting, like [`Launch::spawn`], its standard
    /// error into `stderr`.
    pub fn spawn_to(mut self, stderr: std::fs::File) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        self.command
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("mpirun starts")
    }

    /// Runs to the end or kills it at the timeout (then `code` is `None`).
    /// It runs in a process group of its own; at the timeout that group and
    /// every process the launcher started are killed, so that no rank
    /// outlives it.
    pub fn run(mut self) -> Outcome {
        use std::os::unix::process::CommandExt;
        let start = Instant::now();
        let mut child = self
            .command
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpirun starts");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let read = |mut r: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut s = String::new();
                let _ = r.read_to_string(&mut s);
                s
            })
        };
        let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
        let mut code = None;
        let pgid = child.id();
        let mut killed = Vec::new();
        loop {
            if let Some(status) = child.try_wait().expect("wait works") {
                code = status.code();
                break;
            }
            if start.elapsed() > self.timeout {
                // The launcher and every process it started: ranks whose
                // launcher is gone may busy-poll on.
                killed = kill_launch(pgid);
                let _ = child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(session) = &self.session {
            let _ = std::fs::remove_dir_all(session);
        }
        let results = self.output.as_deref().and_then(results_if_written);
        Outcome {
            code,
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
            seconds: start.elapsed().as_secs_f64(),
            pgid,
            killed,
            out_dir: self.output,
            results,
        }
    }
}

/// `pgcheck ARGS` on `np` processes.
pub fn pgcheck(np: usize, args: &[&str]) -> Outcome {
    Launch::new(np, args).run()
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        match path.is_dir() {
            true => all.extend(files_under(&path)),
            false => all.push(path),
        }
    }
    all
}

/// A fresh scratch directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes an input file into `dir` and returns its path as a string.
pub fn input(dir: &Path, name: &str, yaml: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, yaml).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs `pgcheck verify ARGS --datatype DATATYPE --op OP` and asserts that
/// every candidate passed; where the library has a known bug for that
/// datatype and operator (`known_library_bug`), asserts instead that
/// pgcheck reports it: status 3, the library's own collective wrong, and
/// no candidate failing but of a reduction whose library call failed too.
pub fn assert_verifies_elements(np: usize, args: &[&str], datatype: &str, op: &str) -> Outcome {
    let mut all = args.to_vec();
    all.extend(["--datatype", datatype, "--op", op]);
    let Some(bug) = known_library_bug(datatype, op) else {
        return assert_verifies(np, &all);
    };
    let mut verify = vec!["verify"];
    verify.extend_from_slice(&all);
    let around = around_mpich_in_place_reduce_crash();
    let out = with_env(Launch::new(np, &verify), &around).run();
    assert_eq!(out.code, Some(3), "{bug}: must be reported\n{}", out.text());
    // (collective, candidate) of every row marked FAIL.
    let failed: Vec<(&str, &str)> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with('|'))
        .filter_map(|l| {
            let words: Vec<&str> = l.trim_matches('|').split_whitespace().collect();
            (words.get(2) == Some(&"FAIL")).then(|| (words[0], words[1]))
        })
        .collect();
    assert!(
        failed.contains(&("allreduce", "default")),
        "{bug}: the library's MPI_Allreduce must be reported wrong\n{}",
        out.text()
    );
    for (collective, candidate) in &failed {
        assert!(
            REDUCTIONS.contains(collective) && failed.contains(&(collective, "default")),
            "{collective} {candidate} failed, which {bug} does not explain\n{}",
            out.text()
        );
    }
    out.expect_in_stdout("the library's collective is wrong: MPI_Allreduce", bug);
    out
}

/// MPICH 4.0.2 crashes in an MPI_Reduce with MPI_IN_PLACE at a root other
/// than 0 from 4 KiB on: its CH4 reduce composition copies from the root's
/// send buffer (pmodels/mpich#6540, MPICH 4.0.2 to 4.1.1, fixed by #6543).
/// A C program calling MPI_Reduce alone crashes the same way here.
/// Verifying `default` in place finds it as a lost rank (tests/in_place.rs).
pub fn in_place_reduce_crashes() -> bool {
    library() == "MPICH 4.0.2"
}

/// The launcher's environment that steps around [`in_place_reduce_crashes`]
/// for the tests of other things (every verification through
/// [`assert_verifies`]): MPICH's reduce without its device (CH4) layer,
/// straight to the MPIR algorithms, whose variables still apply.
pub fn around_mpich_in_place_reduce_crash() -> Vec<(&'static str, &'static str)> {
    match in_place_reduce_crashes() {
        true => vec![("MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE", "0")],
        false => vec![],
    }
}

/// `launch` with `env` added to the launcher's environment.
pub fn with_env(launch: Launch, env: &[(&str, &str)]) -> Launch {
    env.iter()
        .fold(launch, |launch, (key, value)| launch.env(key, value))
}

/// Runs `pgcheck verify ARGS` and asserts that every candidate passed
/// (around MPICH's in-place reduce crash).
pub fn assert_verifies(np: usize, args: &[&str]) -> Outcome {
    assert_verifies_with(np, args, &around_mpich_in_place_reduce_crash())
}

/// As [`assert_verifies`], with only `env` added to the launcher's
/// environment.
pub fn assert_verifies_with(np: usize, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    // MPICH's busy-polling ranks, several to a core, took longer than the
    // default 10 s for one call of 1 MiB (MPICH 5.0.2, 5 and 6 ranks on 2
    // cores), which the watchdog rightly calls a hang.
    let shares = busy_polling_shares(np);
    let timeout = format!("{}s", 60 * shares);
    if shares > 1 {
        all.extend(["--timeout", &timeout]);
    }
    let out = with_env(Launch::new(np, &all), env).run();
    assert_eq!(
        out.code,
        Some(0),
        "verify -np {np} {args:?} failed:\n{}",
        out.text()
    );
    let counts = VerifyCounts::of(&out);
    assert_eq!(counts.failed, 0, "{}", out.text());
    assert!(
        counts.passed > counts.cases,
        "verify -np {np} {args:?}: only {} candidate runs passed in {} cases\n{}",
        counts.passed,
        counts.cases,
        out.text()
    );
    out
}

/// What `verify` printed: its summary line's cases, failures and skips,
/// and its table's candidate runs passed. Checks that they agree and that
/// `default` passed in every case of its collective: a verify where
/// everything was skipped cannot pass for one that verified.
#[derive(Debug)]
pub struct VerifyCounts {
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// (collective, candidate) → (passed, failed, skipped).
    pub rows: std::collections::BTreeMap<(String, String), (u64, u64, u64)>,
}

impl VerifyCounts {
    pub fn of(out: &Outcome) -> VerifyCounts {
        // `verify: 4 cases, 0 candidate runs failed, 44 skipped`
        let summary = out
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("verify: "))
            .unwrap_or_else(|| panic!("no summary line\n{}", out.text()));
        let numbers: Vec<u64> = summary
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        let [cases, failed, skipped] = numbers[..] else {
            panic!("summary `{summary}`");
        };
        let mut rows = std::collections::BTreeMap::new();
        for line in out.stdout.lines().filter(|l| l.starts_with("| ")) {
            let words: Vec<&str> = line.trim_matches('|').split_whitespace().collect();
            let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
            if let (Some(p), Some(f), Some(s)) = (number(3), number(4), number(5)) {
                rows.insert((words[0].to_string(), words[1].to_string()), (p, f, s));
            }
        }
        let sum = |pick: fn(&(u64, u64, u64)) -> u64| rows.values().map(pick).sum::<u64>();
        let (passed, failed_rows, skipped_rows) = (sum(|r| r.0), sum(|r| r.1), sum(|r| r.2));
        assert_eq!(failed_rows, failed, "failures in the table\n{}", out.text());
        assert_eq!(skipped_rows, skipped, "skips in the table\n{}", out.text());
        let counts = VerifyCounts {
            cases,
            passed,
            failed,
            skipped,
            rows,
        };
        // Every candidate of a collective has a row for each of its cases.
        let mut default_cases = 0;
        for ((collective, candidate), &(p, f, s)) in &counts.rows {
            let of_collective = counts
                .rows
                .iter()
                .filter(|((c, _), _)| c == collective)
                .map(|(_, r)| r.0 + r.1 + r.2)
                .max()
                .unwrap();
            assert_eq!(p + f + s, of_collective, "{collective} {candidate}");
            if candidate == "default" && f == 0 {
                assert_eq!((p, s), (of_collective, 0), "{collective}: default");
            }
            if candidate == "default" {
                default_cases += of_collective;
            }
        }
        assert_eq!(
            default_cases,
            cases,
            "default in every case\n{}",
            out.text()
        );
        counts
    }
}

/// The fields of /proc/PID/stat after the command's name: state, parent,
/// process group, ... (the name may hold spaces and parentheses).
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(") ")?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Every process now: (pid, state, parent, process group).
fn processes() -> Vec<(u32, String, u32, u32)> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(pid) = name.parse::<u32>() else {
            continue;
        };
        let Some(fields) = stat_fields(&name) else {
            continue;
        };
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u32>().ok());
        if let (Some(parent), Some(group)) = (number(1), number(2)) {
            all.push((pid, fields[0].clone(), parent, group));
        }
    }
    all
}

/// The launcher `pgid` (the leader of its process group), every process
/// of its group and every descendant of either: the ranks, which Open
/// MPI's launcher puts into process groups of their own.
pub fn launch_tree(pgid: u32) -> Vec<u32> {
    let all = processes();
    let mut tree: Vec<u32> = all
        .iter()
        .filter(|p| p.0 == pgid || p.3 == pgid)
        .map(|p| p.0)
        .collect();
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        for p in &all {
            if p.2 == parent && !tree.contains(&p.0) {
                tree.push(p.0);
            }
        }
        i += 1;
    }
    tree
}

/// SIGKILL to the launcher `pgid`, its process group and every process it
/// started ([`launch_tree`]); returns the processes it found.
pub fn kill_launch(pgid: u32) -> Vec<u32> {
    let mut killed = Vec::new();
    // Twice: a process may have forked while the first was under way.
    for _ in 0..2 {
        let tree = launch_tree(pgid);
        let group = libc::pid_t::try_from(pgid).expect("a process id");
        // SAFETY: kill and killpg only send signals.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
            for &pid in &tree {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
        for pid in tree {
            if !killed.contains(&pid) {
                killed.push(pid);
            }
        }
    }
    killed
}

/// Those of `pids` alive (not zombies waiting to be reaped), by /proc.
pub fn alive(pids: &[u32]) -> Vec<u32> {
    pids.iter()
        .copied()
        .filter(|pid| {
            stat_fields(&pid.to_string()).is_some_and(|f| !matches!(f[0].as_str(), "Z" | "X"))
        })
        .collect()
}

/// The processes of group `pgid` alive (not zombies), by /proc.
pub fn alive_in_group(pgid: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|p| p.3 == pgid && !matches!(p.1.as_str(), "Z" | "X"))
        .map(|p| p.0)
        .collect()
}

impl Launch {
    /// Like `new`, but every piece of output is tagged with the rank that
    /// printed it (Open MPI `--tag-output`, MPICH `-prepend-rank`); read the
    /// tags with `ranks_in` and drop them with `untagged`.
    pub fn tagged(np: usize, args: &[&str]) -> Launch {
        Launch::new(np, args).launcher_args(&[if is_open_mpi() {
            "--tag-output"
        } else {
            "-prepend-rank"
        }])
    }

    /// Adds `args` to the launcher's options, before `-np` and the program.
    pub fn launcher_args(self, args: &[&str]) -> Launch {
        let mut command = Command::new(self.command.get_program());
        command.args(args).args(self.command.get_args());
        for (key, value) in self.command.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command.stdin(Stdio::null());
        Launch { command, ..self }
    }
}

/// Where the rank tags of tagged output are, with their ranks. Both
/// libraries tag every write, so a tag may stand mid-line: Open MPI's
/// `[job,rank]<stream>:`, MPICH's `[rank] `.
fn rank_tags(text: &str) -> Vec<(std::ops::Range<usize>, usize)> {
    let mut tags = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find('[') {
        let start = from + offset;
        let tag = open_mpi_tag(&text[start..]).or_else(|| mpich_tag(&text[start..]));
        match tag {
            Some((len, rank)) => {
                tags.push((start..start + len, rank));
                from = start + len;
            }
            None => from = start + 1,
        }
    }
    tags
}

/// `[job,rank]<stream>:` at the start of `s`: its length and rank.
fn open_mpi_tag(s: &str) -> Option<(usize, usize)> {
    let close = s.find(']')?;
    let (job, rank) = s[1..close].rsplit_once(',')?;
    if job.is_empty() || job.contains('[') {
        return None;
    }
    let rank = rank.parse().ok()?;
    let stream = s[close + 1..].strip_prefix('<')?;
    let end = stream.find(">:")?;
    stream[..end]
        .chars()
        .all(|c| c.is_ascii_alphabetic())
        .then_some((close + 2 + end + 2, rank))
}

/// `[rank] ` at the start of `s`: its length and rank.
fn mpich_tag(s: &str) -> Option<(usize, usize)> {
    let close = s.find("] ")?;
    let rank = s[1..close].parse().ok()?;
    Some((close + 2, rank))
}

/// The ranks that printed something in the output of a `Launch::tagged` run.
pub fn ranks_in(text: &str) -> std::collections::BTreeSet<usize> {
    rank_tags(text).into_iter().map(|(_, rank)| rank).collect()
}

/// The output of a `Launch::tagged` run without the rank tags.
pub fn untagged(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut from = 0;
    for (range, _) in rank_tags(text) {
        plain.push_str(&text[from..range.start]);
        from = range.end;
    }
    plain.push_str(&text[from..]);
    plain
}

impl Launch {
    /// Runs the launch under `wrapper` (a program and its first arguments;
    /// the launcher's command line follows them), e.g. in a namespace of
    /// its own.
    pub fn under(self, wrapper: &[&str]) -> Launch {
        let mut command = Command::new(wrapper[0]);
        command
            .args(&wrapper[1..])
            .arg(self.command.get_program())
            .args(self.command.get_args());
        for (key, value) in self.command.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command.stdin(Stdio::null());
        Launch { command, ..self }
    }
}

/// The launcher options that bind every rank to a core (as ci/env.sh's
/// PGCHECK_BIND), several ranks a core where there are more ranks.
pub fn bind_options() -> &'static [&'static str] {
    match (is_open_mpi(), is_intel_mpi()) {
        (true, _) => &["--bind-to", "core:overload-allowed", "--map-by", "core"],
        // Intel's Hydra accepts -bind-to but pins by I_MPI_PIN alone.
        (false, true) => &["-genv", "I_MPI_PIN", "1"],
        (false, false) => &["-bind-to", "core"],
    }
}

/// Whether the tests were built for Intel MPI (build.rs's cfg `mpi`).
pub fn is_intel_mpi() -> bool {
    cfg!(mpi = "impi")
}

impl Launch {
    /// The launch with every rank bound to a core.
    pub fn bound(self) -> Launch {
        self.launcher_args(bind_options())
    }
}
