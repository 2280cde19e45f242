//! Launching the built `pgcheck` under mpirun.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a launch produced.
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

impl Outcome {
    /// Everything it printed, for assertion messages.
    pub fn text(&self) -> String {
        format!("status {:?}\n--- stdout\n{}\n--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

/// The mpirun to use: `PGCHECK_MPIRUN` (set by ci/env.sh) or `mpirun`.
pub fn mpirun() -> String {
    std::env::var("PGCHECK_MPIRUN").unwrap_or_else(|_| "mpirun".into())
}

fn is_open_mpi() -> bool {
    Command::new(mpirun())
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("Open MPI"))
        .unwrap_or(false)
}

/// A launch of `pgcheck` on `np` processes.
pub struct Launch {
    command: Command,
    timeout: Duration,
}

impl Launch {
    pub fn new(np: usize, args: &[&str]) -> Launch {
        let mut command = Command::new(mpirun());
        if is_open_mpi() {
            command.args(["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]);
        }
        command
            .args(["-np", &np.to_string()])
            .arg(env!("CARGO_BIN_EXE_pgcheck"))
            .args(args)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        Launch {
            command,
            timeout: Duration::from_secs(300),
        }
    }

    pub fn env(mut self, key: &str, value: &str) -> Launch {
        self.command.env(key, value);
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Launch {
        self.timeout = timeout;
        self
    }

    /// Runs to the end or kills it at the timeout (then `code` is `None`).
    pub fn run(mut self) -> Outcome {
        let start = Instant::now();
        let mut child = self
            .command
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
        loop {
            if let Some(status) = child.try_wait().expect("wait works") {
                code = status.code();
                break;
            }
            if start.elapsed() > self.timeout {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Outcome {
            code,
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// `pgcheck ARGS` on `np` processes.
pub fn pgcheck(np: usize, args: &[&str]) -> Outcome {
    Launch::new(np, args).run()
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

/// Runs `pgcheck verify ARGS` and asserts that every candidate passed.
pub fn assert_verifies(np: usize, args: &[&str]) -> Outcome {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    let out = pgcheck(np, &all);
    assert_eq!(out.code, Some(0), "verify -np {np} {args:?} failed:\n{}", out.text());
    assert!(out.stdout.contains("0 candidate runs failed"), "{}", out.text());
    out
}
