/* The library-algorithm probe, preloaded into pgcheck's ranks by
 * tests/library.rs: proof that forcing an algorithm through MPI_T really
 * switches it, and that pgcheck puts every variable back.
 *
 * - Open MPI: wraps the coll/base algorithm functions that the tuned
 *   component (a plugin of its own) calls through the dynamic linker, and
 *   prints `probe: ran <function> count <count>` on rank 0 for every call.
 * - MPICH (which reads its variable at every call): wraps MPI_Allreduce
 *   and prints `probe: MPI_Allreduce with MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=<v>`.
 * - Both: at MPI_Finalize, compares every collective algorithm variable
 *   with its value at MPI_Init and prints `probe: restored N variables`
 *   or `probe: NOT restored <name>: <init> -> <now>`, then on rank 0
 *   `probe: W cvar writes, A allreduce calls` (MPI_T_cvar_write calls;
 *   MPI_Allreduce calls, counted on MPICH only).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAX_VARS 64
static int var_index[MAX_VARS], var_init[MAX_VARS], var_count;
static char var_name[MAX_VARS][128];

static int is_algorithm_variable(const char *name) {
    size_t n = strlen(name);
    if (strncmp(name, "coll_tuned_", 11) == 0 && n > 10 && strcmp(name + n - 10, "_algorithm") == 0)
        return 1;
    if (strncmp(name, "MPIR_CVAR_", 10) == 0 && n > 16 && strcmp(name + n - 16, "_INTRA_ALGORITHM") == 0)
        return 1;
    return 0;
}

static int read_variable(int index, int *value) {
    MPI_T_cvar_handle handle;
    int count, buf[4] = {0};
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) return 0;
    int ok = MPI_T_cvar_read(handle, buf) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&handle);
    *value = buf[0];
    return ok;
}

static int rank0(void) {
    int rank = 0, up = 0;
    MPI_Initialized(&up);
    if (up) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

static void record(void) {
    int provided, n;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n && var_count < MAX_VARS; i++) {
        char name[128], desc[8];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype datatype;
        MPI_T_enum enumtype;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &datatype, &enumtype, desc,
                                &desc_len, &bind, &scope) != MPI_SUCCESS)
            continue;
        if (!is_algorithm_variable(name)) continue;
        if (!read_variable(i, &var_init[var_count])) continue;
        var_index[var_count] = i;
        snprintf(var_name[var_count], sizeof var_name[0], "%s", name);
        var_count++;
    }
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    record();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    record();
    return rc;
}

static long cvar_writes, allreduce_calls;

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) {
    cvar_writes++;
    return PMPI_T_cvar_write(handle, buf);
}

int MPI_Finalize(void) {
    int changed = 0;
    for (int i = 0; i < var_count; i++) {
        int now;
        if (read_variable(var_index[i], &now) && now != var_init[i]) {
            fprintf(stderr, "probe: NOT restored %s: %d -> %d\n", var_name[i], var_init[i], now);
            changed++;
        }
    }
    if (!changed && rank0()) fprintf(stderr, "probe: restored %d variables\n", var_count);
    if (rank0())
        fprintf(stderr, "probe: %ld cvar writes, %ld allreduce calls\n", cvar_writes,
                allreduce_calls);
    MPI_T_finalize();
    return PMPI_Finalize();
}

#ifdef OPEN_MPI
/* int f(const void *sbuf, void *rbuf, int count, MPI_Datatype, MPI_Op, MPI_Comm, module) */
#define ALLREDUCE(fn)                                                                        \
    int fn(const void *s, void *r, int c, MPI_Datatype d, MPI_Op o, MPI_Comm comm, void *m) { \
        static int (*real)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, void *); \
        if (!real) real = dlsym(RTLD_NEXT, #fn);                                             \
        if (rank0()) fprintf(stderr, "probe: ran %s count %d\n", #fn, c);                    \
        return real(s, r, c, d, o, comm, m);                                                 \
    }
ALLREDUCE(ompi_coll_base_allreduce_intra_basic_linear)
ALLREDUCE(ompi_coll_base_allreduce_intra_nonoverlapping)
ALLREDUCE(ompi_coll_base_allreduce_intra_recursivedoubling)
ALLREDUCE(ompi_coll_base_allreduce_intra_ring)
ALLREDUCE(ompi_coll_base_allreduce_intra_ring_segmented)
ALLREDUCE(ompi_coll_base_allreduce_intra_redscat_allgather)
#else
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype d, MPI_Op o, MPI_Comm comm) {
    allreduce_calls++;
    for (int i = 0; i < var_count; i++) {
        int now;
        if (strcmp(var_name[i], "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM") == 0 &&
            read_variable(var_index[i], &now) && rank0())
            fprintf(stderr, "probe: MPI_Allreduce with %s=%d\n", var_name[i], now);
    }
    return PMPI_Allreduce(s, r, c, d, o, comm);
}
#endif
