//! `pgcheck`: command line → command (config → plan → measure → analyse →
//! report) → exit status.

use clap::Parser;
use mpi::traits::*;
use pgcheck::cli::{Cli, Command};
use pgcheck::commands::{self, input_error};
use pgcheck::config;
use pgcheck::exit::Exit;
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
    let leader = launcher_rank().unwrap_or(0) == 0;
    let exit = match cli.command {
        // Offline commands need no MPI; rank 0 speaks for all.
        Command::List => {
            let _tools = discover_library_algorithms();
            commands::list::list(leader)
        }
        Command::Analyze(args) if leader => commands::analyze::analyze(&args),
        Command::Analyze(_) => Exit::Pass,
        Command::Compare(args) if leader => commands::compare::compare(&args),
        Command::Compare(_) => Exit::Pass,
        Command::History(args) if leader => commands::history::history(&args),
        Command::History(_) => Exit::Pass,
        Command::Tune(args) if leader => commands::tune::tune(&args),
        Command::Tune(_) => Exit::Pass,
        command => with_mpi(command),
    };
    std::process::exit(exit.code());
}

/// The commands that run on every rank.
fn with_mpi(command: Command) -> Exit {
    let universe = mpi::initialize().expect("MPI initialises");
    let tools = discover_library_algorithms();
    commands::abort_on_panic();
    let comm = Rc::new(universe.world().duplicate());
    let leader = comm.rank() == 0;
    let exit = match command {
        Command::Run(args) => match run_input(&args) {
            Err(e) => input_error(leader, &e.0),
            Ok(config) => match commands::context(&comm, &args.setup, Some(&config)) {
                Err(e) => input_error(leader, &e),
                Ok(ctx) => commands::run::run(&ctx, &config, &args),
            },
        },
        Command::Verify(args) => match args.input.as_deref().map(config::load).transpose() {
            Err(e) => input_error(leader, &e.0),
            Ok(config) => match commands::context(&comm, &args.setup, config.as_ref()) {
                Err(e) => input_error(leader, &e),
                Ok(ctx) => commands::verify::verify(&ctx, config.as_ref(), &args),
            },
        },
        Command::Clocks(args) => commands::clocks::clocks(&comm, &args),
        Command::List
        | Command::Analyze(_)
        | Command::Compare(_)
        | Command::History(_)
        | Command::Tune(_) => {
            unreachable!("offline commands")
        }
    };
    drop(comm);
    // MPI_T ends before MPI: Open MPI 4.1 crashes in an MPI_T_finalize after MPI_Finalize.
    drop(tools);
    drop(universe);
    exit
}

/// The input of `run`: its file, or the check its options give.
fn run_input(args: &pgcheck::cli::RunArgs) -> Result<config::Config, config::InputError> {
    match (&args.input, args.check.check(&args.setup)) {
        (Some(path), _) => config::load(path),
        (None, Some(check)) => config::from_options(check),
        (None, None) => unreachable!("clap requires an input file or --collective"),
    }
}

/// Starts the MPI tools interface for the run and registers the library's
/// own algorithms (family `library`); without MPI_T that family is empty.
fn discover_library_algorithms() -> Option<pgcheck::mpit::Session> {
    let session = pgcheck::mpit::Session::start().ok()?;
    pgcheck::candidates::library::discover(&session);
    Some(session)
}
