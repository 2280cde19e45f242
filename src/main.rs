//! `pgcheck`: command line → settings → command (config → plan → measure →
//! analyse → report) → how it ended → exit status.

use clap::Parser;
use mpi::traits::*;
use pgcheck::candidates::library;
use pgcheck::cli::Cli;
use pgcheck::commands::arguments::Command;
use pgcheck::commands::{self, input_error};
use pgcheck::config;
use pgcheck::exit::{self, Ending};
use pgcheck::measure::environment;
use pgcheck::report;
use std::rc::Rc;

/// This process's rank as the launcher tells it, before MPI starts; `None`
/// when not started by a launcher.
fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout and pass, errors to stderr
            // as usage errors; rank 0 speaks for all. Under a launcher
            // every rank waits in MPI_Finalize until rank 0 has spoken, so
            // that no early exit gets the job killed before the message.
            let launched = launcher_rank().is_some();
            let universe = launched.then(mpi::initialize).flatten();
            if launcher_rank().unwrap_or(0) == 0 {
                let _ = e.print();
            }
            drop(universe);
            let ending = match e.use_stderr() {
                true => Ending::InputError,
                false => Ending::Done,
            };
            std::process::exit(exit::status(ending).code());
        }
    };
    let leader = launcher_rank().unwrap_or(0) == 0;
    let command = Command::of(cli.command);
    let ending = match command {
        // Offline commands need no MPI; rank 0 speaks for all.
        Command::List => {
            library::enable();
            let ending = commands::list::list(leader);
            library::end();
            ending
        }
        Command::Analyze(settings) if leader => commands::analyze::analyze(&settings),
        Command::Compare(settings) if leader => commands::compare::compare(&settings),
        Command::History(settings) if leader => commands::history::history(&settings),
        Command::Tune(settings) if leader => commands::tune::tune(&settings),
        Command::Analyze(_) | Command::Compare(_) | Command::History(_) | Command::Tune(_) => {
            Ending::Done
        }
        // Started from a shell, MPI would measure one process alone, and
        // its verdicts (or clock offsets) would say nothing: say how to
        // start it instead. `mpirun -np 1` still runs one on purpose.
        Command::Run(_) | Command::Verify(_) | Command::Clocks(_)
            if !environment::launched(|name| std::env::var(name).ok()) =>
        {
            let name = match command {
                Command::Run(_) => "run",
                Command::Verify(_) => "verify",
                _ => "clocks",
            };
            report::error(&format!(
                "pgcheck {name} needs a launcher to start its processes, and none started this one: \
                 run `mpirun -np N pgcheck {name} …` (N processes, e.g. 4), or `srun -n N pgcheck {name} …` \
                 under Slurm; `mpirun -np 1` runs one process on purpose"
            ));
            Ending::InputError
        }
        command => with_mpi(command),
    };
    std::process::exit(exit::status(ending).code());
}

/// The commands that run on every rank.
fn with_mpi(command: Command) -> Ending {
    let universe = mpi::initialize().expect("MPI initialises");
    library::enable();
    commands::abort_on_panic();
    let comm = Rc::new(universe.world().duplicate());
    let leader = comm.rank() == 0;
    let ending = match command {
        Command::Run(settings) => match commands::run::input(&settings) {
            Err(e) => input_error(leader, &e.0),
            Ok(config) => match commands::context(&comm, &settings.setup, Some(&config)) {
                Err(e) => input_error(leader, &e),
                Ok(ctx) => commands::run::run(&ctx, &config, &settings),
            },
        },
        Command::Verify(settings) => {
            match settings.input.as_deref().map(config::load).transpose() {
                Err(e) => input_error(leader, &e.0),
                Ok(config) => match commands::context(&comm, &settings.setup, config.as_ref()) {
                    Err(e) => input_error(leader, &e),
                    Ok(ctx) => commands::verify::verify(&ctx, config.as_ref(), &settings),
                },
            }
        }
        Command::Clocks(settings) => commands::clocks::clocks(&comm, &settings),
        Command::List
        | Command::Analyze(_)
        | Command::Compare(_)
        | Command::History(_)
        | Command::Tune(_) => {
            unreachable!("offline commands")
        }
    };
    drop(comm);
    library::end();
    drop(universe);
    ending
}
