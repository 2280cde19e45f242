/*
 * Test-only lies about the host, through the MPI profiling interface (PMPI).
 *
 * Loaded with LD_PRELOAD into the MPI ranks (never into mpirun), it
 * interposes MPI_Wtime and MPI_Comm_split_type, so that the tests can show
 * that pgcheck measures its timer instead of believing MPI_Wtick, and
 * cross-checks the nodes MPI reports against host names.
 *
 * Configuration (environment; unset means pass through):
 *
 *   PGCHECK_WTIME_ROUND_S=Q   MPI_Wtime returns PMPI_Wtime() rounded down
 *                             to a multiple of Q seconds (e.g. 0.001: a
 *                             1 ms clock). MPI_Wtick is left alone, so it
 *                             still claims the library's fine resolution.
 *   PGCHECK_WTIME_OFFSET_S=O0,O1,...
 *                             rank r's MPI_Wtime is O_r seconds ahead of
 *                             PMPI_Wtime (ranks past the list: 0).
 *   PGCHECK_WTIME_DRIFT=D0,D1,...
 *                             rank r's MPI_Wtime runs 1 + D_r times as fast
 *                             as PMPI_Wtime from its first call on (e.g.
 *                             1e-3: 1 ms a second fast; ranks past the
 *                             list: 0). Offset and drift are applied before
 *                             the rounding. The rank is the launcher's
 *                             (OMPI_COMM_WORLD_RANK or PMI_RANK): MPI_Wtime
 *                             may be called before MPI_Init.
 *   PGCHECK_SPLIT_ALONE=1     MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 *                             puts every rank on a node of its own (colour
 *                             = rank), whatever the hardware shares.
 *
 * A value that cannot be parsed is reported on stderr, then MPI_Abort.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This process's rank in MPI_COMM_WORLD from the launcher's environment;
 * -1 when neither variable is set. */
static int launcher_rank(void) {
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *text = getenv(names[i]);
        if (text != NULL && *text != '\0') {
            return atoi(text);
        }
    }
    return -1;
}

/* This rank's entry of the comma-separated list of numbers in variable
 * `name`; 0 when unset or the list is shorter. */
static double per_rank(const char *name) {
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') {
        return 0.0;
    }
    int rank = launcher_rank();
    if (rank < 0) {
        fprintf(stderr, "%s needs OMPI_COMM_WORLD_RANK or PMI_RANK\n", name);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *at = text;
    double value = 0.0;
    for (int r = 0; r <= rank; r++) {
        char *end = NULL;
        value = strtod(at, &end);
        if (end == at || (*end != ',' && *end != '\0') || value != value) {
            fprintf(stderr, "bad %s: %s\n", name, text);
            PMPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (*end == '\0' && r < rank) {
            return 0.0;
        }
        at = end + 1;
    }
    return value;
}

/* The rounding quantum of MPI_Wtime; 0: none. Read once. */
static double quantum(void) {
    static int read = 0;
    static double q = 0.0;
    if (!read) {
        const char *text = getenv("PGCHECK_WTIME_ROUND_S");
        if (text != NULL && *text != '\0') {
            char *end = NULL;
            q = strtod(text, &end);
            if (end == text || *end != '\0' || !(q > 0.0 && q < 1e9)) {
                fprintf(stderr, "bad PGCHECK_WTIME_ROUND_S: %s\n", text);
                PMPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        read = 1;
    }
    return q;
}

double MPI_Wtime(void) {
    static int read = 0;
    static double offset = 0.0, drift = 0.0, origin = 0.0;
    double t = PMPI_Wtime();
    if (!read) {
        offset = per_rank("PGCHECK_WTIME_OFFSET_S");
        drift = per_rank("PGCHECK_WTIME_DRIFT");
        origin = t;
        read = 1;
    }
    t += offset + drift * (t - origin);
    double q = quantum();
    /* Truncation is rounding down: MPI_Wtime is never negative. */
    return q > 0.0 ? (double)(long long)(t / q) * q : t;
}

/* Whether shared-memory splits put every rank alone. */
static int alone(void) {
    const char *text = getenv("PGCHECK_SPLIT_ALONE");
    if (text == NULL || *text == '\0' || strcmp(text, "0") == 0) {
        return 0;
    }
    if (strcmp(text, "1") != 0) {
        fprintf(stderr, "bad PGCHECK_SPLIT_ALONE: %s (0 or 1)\n", text);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    return 1;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm) {
    if (split_type == MPI_COMM_TYPE_SHARED && alone()) {
        int rank;
        PMPI_Comm_rank(comm, &rank);
        return PMPI_Comm_split(comm, rank, key, newcomm);
    }
    return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
}
