fn main() {
    let universe = mpi::initialize().expect("MPI initialises");
    drop(universe);
}
