//! `pgcheck clocks`: how well `roundtime`'s clock synchronisation works here.

use crate::cli::ClocksArgs;
use crate::control::Control;
use crate::exit::Exit;
use crate::measure::clock;
use crate::report;
use mpi::topology::SimpleCommunicator;

/// Synchronises, then shows every rank's offset now and after a wait.
pub fn clocks(comm: &SimpleCommunicator, args: &ClocksArgs) -> Exit {
    let control = Control::new(comm);
    let quality = clock::quality(
        &control,
        args.exchanges,
        args.drift.as_secs_f64(),
        args.wait.as_secs_f64(),
    );
    if control.rank() == 0 {
        report::show(&report::text::clocks::render(
            quality.sync_s,
            quality.wait_s,
            &quality.now,
            &quality.later,
        ));
    }
    Exit::Pass
}
