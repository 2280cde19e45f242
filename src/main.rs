//! `pgcheck`: config → plan → measure → analyse → report.

use clap::Parser;
use mpi::traits::*;
use pgcheck::cli::{Cli, Command, RunArgs, SetupArgs, VerifyArgs};
use pgcheck::exit::Exit;
use pgcheck::measure::Context;
use pgcheck::{app, config};
use std::rc::Rc;

fn main() {
    let universe = mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    app::abort_on_panic();
    let leader = world.rank() == 0;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0, errors to stderr
            // with the usage status; rank 0 speaks for all.
            if leader {
                let _ = e.print();
            }
            let code = if e.use_stderr() { Exit::Input.code() } else { 0 };
            drop(universe);
            std::process::exit(code);
        }
    };
    let comm = Rc::new(world.duplicate());
    let exit = match cli.command {
        Command::List => {
            if leader {
                print!("{}", pgcheck::report::list::render());
            }
            Exit::Pass
        }
        Command::Run(args) => run(&comm, args),
        Command::Verify(args) => verify(&comm, args),
    };
    drop(comm);
    drop(universe);
    std::process::exit(exit.code());
}

fn context(comm: &Rc<mpi::topology::SimpleCommunicator>, setup: &SetupArgs, ppn: Option<usize>) -> Result<Context, String> {
    let ppn = setup.ppn.or(ppn);
    let size = comm.size() as usize;
    if let Some(n) = ppn {
        if n == 0 || size % n != 0 {
            return Err(format!("--ppn {n} must divide the {size} processes into equal virtual nodes"));
        }
    }
    let topology = algorithms::topology::Topology::new(comm, ppn).map(Rc::new);
    Ok(Context { comm: comm.clone(), topology })
}

fn run(comm: &Rc<mpi::topology::SimpleCommunicator>, args: RunArgs) -> Exit {
    let leader = comm.rank() == 0;
    let config = match config::load(&args.input) {
        Ok(c) => c,
        Err(e) => return app::input_error(leader, &e.0),
    };
    let ctx = match context(comm, &args.setup, config.ppn) {
        Ok(c) => c,
        Err(e) => return app::input_error(leader, &e),
    };
    app::run(&ctx, &config, &args)
}

fn verify(comm: &Rc<mpi::topology::SimpleCommunicator>, args: VerifyArgs) -> Exit {
    let leader = comm.rank() == 0;
    let config = match &args.input {
        Some(path) => match config::load(path) {
            Ok(c) => Some(c),
            Err(e) => return app::input_error(leader, &e.0),
        },
        None => None,
    };
    let ctx = match context(comm, &args.setup, config.as_ref().and_then(|c| c.ppn)) {
        Ok(c) => c,
        Err(e) => return app::input_error(leader, &e),
    };
    app::verify(&ctx, config.as_ref(), &args)
}
