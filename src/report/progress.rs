//! Progress on rank 0 while measuring, always on standard error so that
//! `--format json` on standard output stays clean. On a terminal a thread
//! draws a bar from the plain events measuring sends over a channel;
//! otherwise there is no thread on rank 0 (it would compete with the ranks
//! for the cores) and a plain line is written between cases, at most every
//! five seconds.

use crate::case::Event;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Seconds between progress lines without a terminal: a line a case
/// filled a short run's output with them, and a CI log needs no more.
const QUIET_S: u64 = 5;

/// The renderer: a bar thread on a terminal, lines between cases otherwise.
pub struct Progress {
    /// Where measuring sends its events (a terminal only).
    pub events: Option<Sender<Event>>,
    thread: Option<JoinHandle<()>>,
    plan_s: f64,
    last_line: Option<Instant>,
}

impl Progress {
    /// Starts rendering for a plan of `plan_s` seconds.
    pub fn start(plan_s: f64) -> Progress {
        let (events, thread) = if super::interactive(&std::io::stderr()) {
            let (events, receiver) = channel();
            let thread = std::thread::spawn(move || bar(receiver, plan_s));
            (Some(events), Some(thread))
        } else {
            (None, None)
        };
        Progress {
            events,
            thread,
            plan_s,
            last_line: None,
        }
    }

    /// A case is done: without a terminal, a line if the last one is
    /// [`QUIET_S`] old.
    pub fn case_done(&mut self, case: usize, cases: usize, elapsed_s: f64) {
        if self.thread.is_some()
            || self
                .last_line
                .is_some_and(|t| t.elapsed() < Duration::from_secs(QUIET_S))
        {
            return;
        }
        self.last_line = Some(Instant::now());
        super::remark(&format!(
            "[{case}/{cases}] {elapsed_s:.1} s of {:.1} s, about {:.1} s left\n",
            self.plan_s,
            (self.plan_s - elapsed_s).max(0.0)
        ));
    }

    /// Waits until everything is shown.
    pub fn finish(self) {
        drop(self.events);
        if let Some(thread) = self.thread {
            let _ = thread.join();
        }
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
