//! `pgcheck`: config → plan → measure → analyse → report.

use clap::Parser;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use pgcheck::cli::{Cli, Command, SetupArgs};
use pgcheck::exit::Exit;
use pgcheck::measure::Context;
use pgcheck::{app, config};
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
            // Help and version go to stdout with status 0, errors to stderr
            // with the usage status; rank 0 speaks for all. Under a launcher
            // every rank waits in MPI_Finalize until rank 0 has spoken, so
            // that no early exit gets the job killed before the message.
            let launched = launcher_rank().is_some();
            let universe = launched.then(mpi::initialize).flatten();
            if launcher_rank().unwrap_or(0) == 0 {
                let _ = e.print();
            }
            drop(universe);
            std::process::exit(if e.use_stderr() {
                Exit::Input.code()
            } else {
                0
            });
        }
    };
    let exit = match cli.command {
        // Offline commands need no MPI.
        Command::List => {
            if launcher_rank().unwrap_or(0) == 0 {
                pgcheck::report::show(&pgcheck::report::list::render());
            }
            Exit::Pass
        }
        Command::Analyze(args) => {
            if launcher_rank().unwrap_or(0) == 0 {
                app::analyze(&args)
            } else {
                Exit::Pass
            }
        }
        command => with_mpi(command),
    };
    std::process::exit(exit.code());
}

/// The commands that run on every rank.
fn with_mpi(command: Command) -> Exit {
    let universe = mpi::initialize().expect("MPI initialises");
    app::abort_on_panic();
    let comm = Rc::new(universe.world().duplicate());
    let leader = comm.rank() == 0;
    let exit = match command {
        Command::Run(args) => match config::load(&args.input) {
            Err(e) => app::input_error(leader, &e.0),
            Ok(config) => match context(&comm, &args.setup, config.ppn) {
                Err(e) => app::input_error(leader, &ppn_error(&config, &args.setup, e)),
                Ok(ctx) => app::run(&ctx, &config, &args),
            },
        },
        Command::Verify(args) => {
            let config = args.input.as_deref().map(config::load).transpose();
            match config {
                Err(e) => app::input_error(leader, &e.0),
                Ok(config) => {
                    match context(&comm, &args.setup, config.as_ref().and_then(|c| c.ppn)) {
                        Err(e) => match &config {
                            Some(config) => {
                                app::input_error(leader, &ppn_error(config, &args.setup, e))
                            }
                            None => app::input_error(leader, &e),
                        },
                        Ok(ctx) => app::verify(&ctx, config.as_ref(), &args),
                    }
                }
            }
        }
        Command::Clocks(args) => app::clocks(&comm, &args),
        Command::List | Command::Analyze(_) => unreachable!("offline commands"),
    };
    drop(comm);
    drop(universe);
    exit
}

/// A ppn error, at the line of the file when the file set it.
fn ppn_error(config: &config::Config, setup: &SetupArgs, message: String) -> String {
    match (setup.ppn, config.ppn_line) {
        (None, Some(line)) => format!(
            "{}:{line}: {}",
            config.path.display(),
            message.replace("--ppn", "ppn")
        ),
        _ => message,
    }
}

/// The processes and their node topology (real, or virtual with `ppn`).
fn context(
    comm: &Rc<SimpleCommunicator>,
    setup: &SetupArgs,
    ppn: Option<usize>,
) -> Result<Context, String> {
    let ppn = setup.ppn.or(ppn);
    let size = comm.size() as usize;
    if let Some(n) = ppn {
        if n == 0 || !size.is_multiple_of(n) {
            return Err(format!(
                "--ppn {n} does not divide the {size} processes into equal virtual nodes"
            ));
        }
    }
    let topology = algorithms::topology::Topology::new(comm, ppn).map(Rc::new);
    Ok(Context {
        comm: comm.clone(),
        topology,
    })
}
