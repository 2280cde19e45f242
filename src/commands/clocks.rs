//! `pgcheck clocks`: how well `roundtime`'s clock synchronisation works here.

use crate::cli::ClocksArgs;
use crate::control::Control;
use crate::exit::Exit;
use crate::measure::clock;
use crate::report;
use mpi::topology::SimpleCommunicator;
use std::time::Duration;

/// Synchronises, then measures every rank's offset now and after a wait.
pub fn clocks(comm: &SimpleCommunicator, args: &ClocksArgs) -> Exit {
    let control = Control::new(comm);
    control.barrier();
    let start = mpi::time();
    let global = clock::synchronise(&control, args.exchanges, args.drift.as_secs_f64());
    let took = mpi::time() - start;
    let now = clock::residual_offsets(&control, &global, args.exchanges);
    let until = mpi::time() + args.wait.as_secs_f64();
    while mpi::time() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    let later = clock::residual_offsets(&control, &global, args.exchanges);
    if control.rank() == 0 {
        report::show(&report::text::clocks::render(
            took,
            args.wait.as_secs_f64(),
            &now,
            &later,
        ));
    }
    Exit::Pass
}
