# Sourced by the ci/ scripts: which MPI to use and how to launch it.
# PGCHECK_MPI=openmpi (default) or mpich selects the library.
PGCHECK_MPI=${PGCHECK_MPI:-openmpi}
case "$PGCHECK_MPI" in
  openmpi)
    MPI_PACKAGES="libopenmpi-dev openmpi-bin"
    export MPICC=${MPICC:-mpicc.openmpi}
    export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-mpirun.openmpi}
    ;;
  mpich)
    MPI_PACKAGES="libmpich-dev mpich"
    export MPICC=${MPICC:-mpicc.mpich}
    export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-mpirun.mpich}
    # Separate builds: the two libraries are not ABI-compatible.
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/mpich}
    ;;
  *)
    echo "PGCHECK_MPI must be openmpi or mpich, not $PGCHECK_MPI" >&2
    exit 2
    ;;
esac
# Open MPI refuses root and more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Oversubscribed ranks must yield the core instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
