/* MPI_IN_PLACE as this MPI library's mpi.h defines it: (void *) 1 in Open
 * MPI, (void *) -1 in MPICH. rsmpi 0.8 does not export it, and its value
 * is the library's to choose, so Rust reads it from here. */
#include <mpi.h>

void *mockups_mpi_in_place(void)
{
    return MPI_IN_PLACE;
}
