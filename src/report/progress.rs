//! Progress on rank 0 while measuring: a bar on a terminal, a plain line
//! every few seconds otherwise, always on standard error so that
//! `--format json` on standard output stays clean. Measuring sends plain
//! events over a channel; a thread renders them.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where measuring is.
#[derive(Clone, Debug)]
pub struct Event {
    /// 1-based index of the case and the number of cases.
    pub case: usize,
    pub cases: usize,
    /// e.g. `allreduce 8 B`.
    pub label: String,
    pub candidate: String,
    /// 1-based round and the number of rounds.
    pub round: usize,
    pub rounds: usize,
    /// Seconds since measuring started, and of the plan booked so far.
    pub elapsed_s: f64,
    pub planned_s: f64,
}

/// The renderer; dropping the sender ends it.
pub struct Progress {
    pub events: Sender<Event>,
    thread: JoinHandle<()>,
}

impl Progress {
    /// Starts rendering for a plan of `plan_s` seconds.
    pub fn start(plan_s: f64) -> Progress {
        let (events, receiver) = channel();
        let terminal = super::interactive(&std::io::stderr());
        let thread = std::thread::spawn(move || {
            if terminal {
                bar(receiver, plan_s)
            } else {
                lines(receiver, plan_s)
            }
        });
        Progress { events, thread }
    }

    /// Waits until everything is shown.
    pub fn finish(self) {
        drop(self.events);
        let _ = self.thread.join();
    }
}

fn describe(e: &Event) -> String {
    format!(
        "[{}/{}] {} · {} · round {}/{}",
        e.case, e.cases, e.label, e.candidate, e.round, e.rounds
    )
}

fn bar(events: Receiver<Event>, plan_s: f64) {
    let bar = ProgressBar::new((plan_s * 1000.0) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {msg} ({elapsed} of plan, {eta} left)")
            .expect("a valid template"),
    );
    for e in events {
        bar.set_position((e.planned_s * 1000.0) as u64);
        bar.set_message(describe(&e));
    }
    bar.finish_and_clear();
}

fn lines(events: Receiver<Event>, plan_s: f64) {
    let mut last: Option<Instant> = None;
    for e in events {
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(2)) {
            continue;
        }
        last = Some(Instant::now());
        eprintln!(
            "{}: {:.1} s of {:.1} s, about {:.1} s left",
            describe(&e),
            e.elapsed_s,
            plan_s,
            (plan_s - e.planned_s).max(0.0)
        );
    }
}
