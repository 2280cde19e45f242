//! `pgcheck clocks`: how well `roundtime`'s clock synchronisation works here.

use crate::commands::arguments::Clocks;
use crate::control::Control;
use crate::exit::Ending;
use crate::measure::clock;
use crate::report;
use mpi::topology::SimpleCommunicator;

/// Synchronises, then shows every rank's offset now and after a wait.
pub fn clocks(comm: &SimpleCommunicator, args: &Clocks) -> Ending {
    let control = Control::new(comm);
    let quality = clock::quality(&control, args.exchanges, args.drift_s, args.wait_s);
    if control.rank() == 0 {
        report::show(&report::text::clocks::render(
            quality.sync_s,
            quality.wait_s,
            &quality.now,
            &quality.later,
        ));
    }
    Ending::Done
}
