//! Compiles `src/in_place.c` against the MPI library rsmpi builds against
//! (found the same way, through `$MPICC` or `mpicc`): the value of
//! `MPI_IN_PLACE` is the library's, and rsmpi 0.8 does not export it.

fn main() {
    println!("cargo:rerun-if-changed=src/in_place.c");
    println!("cargo:rerun-if-env-changed=MPICC");
    let mpi = build_probe_mpi::probe()
        .unwrap_or_else(|errors| panic!("no MPI library found: {errors:?}"));
    let mut build = cc::Build::new();
    build.file("src/in_place.c");
    for dir in &mpi.include_paths {
        build.include(dir);
    }
    build.compile("mockups_in_place");
}
