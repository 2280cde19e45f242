/*
 * Test-only fault injection through the MPI profiling interface (PMPI).
 *
 * Loaded with LD_PRELOAD into the MPI ranks (never into mpirun), it defines
 * MPI_Xxx for a few collectives and calls the real PMPI_Xxx, so that the
 * tests can make the library's own collective, or an ingredient of a
 * mock-up, deliver a wrong result, and check that pgcheck notices.
 *
 * Configuration, read once (at MPI_Init / MPI_Init_thread, or at the first
 * interposed call):
 *
 *   PGCHECK_FAULT=<MPI function>:<kind>[,rank=R][,bytes=B]...
 *
 * where the function `*` is every interposed function (with scale=P: a
 * machine that got slower for every collective).
 *
 *   kind      flip      after the real call, flip the lowest bit of the byte
 *                       at offset (output bytes / 2) of the output, where
 *                       the output is everything the call writes on this
 *                       process (all p blocks of an allgather, counted
 *                       without the gaps between displacements)
 *             saturate  after the real call, fill the output with 0xFF
 *             nowrite   run the real call into a private scratch copy, so
 *                       that the caller's output buffer is never written
 *             delay=US  spin US microseconds after the real call
 *             scale=P   spin after the real call until it has taken P % of
 *                       its own time (scale=150: 1.5 times as long): a
 *                       slowdown by a known factor, whatever the call costs.
 *                       Give it one rank (rank=0): on every rank, a rank's
 *                       call would include its wait for another's spin and
 *                       stretch that too, and the factors would compound
 *             slow=P    spin after the real call for (P - 100) % of the
 *                       call's usual time on this rank (the running median
 *                       of its durations, per function and size): a
 *                       slowdown by a known factor that is exact at the
 *                       median and cannot compound (a fixed wait per call),
 *                       whatever state the machine is in. Give it every
 *                       rank (no rank=), so that the last rank's call,
 *                       whose end the observation takes, is slowed too
 *             noop      MPI_Barrier only: return at once, without the
 *                       call: a barrier that does not synchronise
 *             blocking  MPI_Iallreduce only: the whole allreduce at the
 *                       start (PMPI_Allreduce), and a request that is
 *                       already complete (MPI_REQUEST_NULL): a library that
 *                       overlaps nothing with computation before MPI_Wait
 *             twice     MPI_Allreduce only: after the real call, combine the
 *                       output once more with this rank's own input
 *                       (MPI_Reduce_local with the call's operator): a rank
 *                       counted twice, which an idempotent operator (bor,
 *                       band, min, max) cannot show
 *             hang      never return: sleep instead of the call
 *             exit=S    exit(S) instead of the call: a rank that dies
 *             abort     abort() instead of the call: a rank that crashes
 *   rank=R    only on rank R of the call's communicator. Without it, every
 *             rank where MPI defines an output (delay, hang, exit, abort:
 *             every rank).
 *   after=N   only from the (N+1)th matching call of this process on: a
 *             library that is right in verification and wrong later
 *   every=M   only every Mth matching call of this process (the Mth, the
 *             2Mth, ...), counted after `after`: wrong in 1 call of M
 *   for=MS    only for MS milliseconds of wall time from the first call
 *             the fault strikes (after `after`), then never again: with
 *             delay=, a window in which the machine stalled
 *   type=T    only calls of datatype T: double, float, int32, int64, uint8
 *             (pgcheck's bookkeeping uses double, int32 and uint8)
 *   op=O      only calls whose operator is the built-in MPI_O: sum, prod,
 *             min, max, band, bor, bxor. Only the reductions (Allreduce,
 *             Reduce, Scan, Exscan, Reduce_scatter_block, Reduce_scatter)
 *             have an operator; a user-defined one (MPI_Op_create) never
 *             matches, even where it computes the same: a fault that
 *             corrupts MPI_SUM alone tells the two apart
 * Matching calls are those of the function, bytes=, type= and op= filters,
 * on this process, whatever the rank filter.
 *   bytes=B   only calls whose size is B bytes; may be repeated, and then
 *             any of the sizes matches. pgcheck itself calls MPI_Bcast,
 *             MPI_Allreduce and MPI_Allgather on small buffers of its own
 *             (decisions, timings, flags): a fault in these functions must
 *             name the checked sizes to spare them.
 *   inplace   only calls with MPI_IN_PLACE: as the send buffer, or as the
 *             receive buffer of Scatter at its root (which has no output
 *             to corrupt). pgcheck's own control-plane calls are never in
 *             place, and the usual form of the same collective is spared.
 *   comm=permuted  only calls on a communicator with MPI_COMM_WORLD's
 *             processes in another rank order (MPI_Comm_compare gives
 *             MPI_SIMILAR): the communicator family's permuted one, never
 *             the world, pgcheck's duplicates of it (MPI_CONGRUENT) nor
 *             a one-process split (MPI_CONGRUENT too)
 *
 * The size of a call, for bytes=, is count x MPI_Type_size of its datatype:
 *   Allreduce, Reduce, Bcast, Scan, Exscan   the vector: count
 *   Allgather, Gather, Alltoall, Scatter,
 *   Reduce_scatter_block                     one process's block: recvcount
 *                                            (sendcount where the receive
 *                                            arguments mean nothing)
 *   Allgatherv, Gatherv, Reduce_scatter      the whole vector: the sum of
 *                                            recvcounts (p x sendcount
 *                                            where they mean nothing)
 * which is what pgcheck calls the size of these collectives; for the
 * v-variants, which pgcheck's mock-ups use with uneven or single blocks,
 * the sum is the size of what they stand in for.
 *
 * Outputs are only touched where MPI defines them: the root of Reduce,
 * Gather and Gatherv; the non-root ranks of Bcast (the root's buffer is
 * its input, and stays untouched); not rank 0 of Exscan; not the root of
 * Scatter with MPI_IN_PLACE. The byte offsets assume contiguous datatypes
 * (extent = size), which are all pgcheck uses.
 *
 * MPI_Ssend and MPI_Put carry their data to another process: flip and
 * saturate corrupt what is sent (a copy: the caller's buffer stays as it
 * was), the other kinds act as for a collective. Their size is count x
 * MPI_Type_size; rank= is the rank in MPI_COMM_WORLD for MPI_Put (a window
 * has no communicator to ask), the sender's for MPI_Ssend.
 *
 * With PGCHECK_COUNT_WINDOWS set, each process counts the windows it
 * creates (MPI_Win_create) and frees (MPI_Win_free) and prints at
 * MPI_Finalize: "pmpi_faults: rank R created C windows, freed F".
 *
 * MPI_Allreduce_init, the persistent allreduce, is interposed under both
 * its names (MPI-4's, and MPIX_Allreduce_init of Open MPI 4.1's pcollreq
 * extension), and selected as MPI_Allreduce_init either way. Only nowrite
 * applies: the request is bound to a scratch buffer (kept for the
 * request's life), so that no MPI_Start of it writes the caller's output.
 *
 * A spec that cannot be parsed is reported on stderr, then MPI_Abort.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum kind { FLIP, SATURATE, NOWRITE, DELAY, SCALE, SLOW, TWICE, BLOCKING, NOOP, HANG, EXIT, ABORT };

#define MAX_BYTES 8

static struct {
    int parsed;
    int active; /* PGCHECK_FAULT is set */
    char function[64];
    enum kind kind;
    long delay_us;
    long scale_percent;
    int rank; /* -1: every rank */
    int nbytes;
    long long bytes[MAX_BYTES];
    long long after; /* matching calls spared first */
    long long every; /* 0: every call */
    long long for_ms; /* 0: no window */
    struct timespec window_start; /* set at the first call struck */
    int window_started;
    int exit_status;
    char type[16]; /* "": any datatype */
    char op[8]; /* "": any operator, or none */
    long long matched; /* matching calls so far */
    int in_place_only; /* inplace: only calls with MPI_IN_PLACE */
    int permuted_only; /* comm=permuted: only on a reordered world */
} fault;

/* The functions this library interposes: a spec naming another one is an
 * error rather than a fault that silently never happens. */
static const char *const supported[] = {
    "MPI_Allreduce", "MPI_Reduce",  "MPI_Bcast",   "MPI_Allgather",
    "MPI_Allgatherv", "MPI_Gather", "MPI_Gatherv", "MPI_Reduce_scatter_block",
    "MPI_Reduce_scatter", "MPI_Scan", "MPI_Exscan", "MPI_Alltoall",
    "MPI_Scatter", "MPI_Barrier", "MPI_Allreduce_init", "MPI_Iallreduce", "MPI_Ssend",
    "MPI_Put", NULL,
};

static void bad_spec(const char *spec, const char *why)
{
    fprintf(stderr, "pmpi_faults: bad PGCHECK_FAULT \"%s\": %s\n", spec, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2); /* MPI_Abort does not return, but be sure */
}

/* Parses a non-negative decimal number filling the whole of `text`. */
static int number(const char *text, long long *value)
{
    char *end;
    if (*text < '0' || *text > '9')
        return 0;
    *value = strtoll(text, &end, 10);
    return *end == '\0';
}

/* The built-in operator op= names; MPI_OP_NULL for another name. */
static MPI_Op op_named(const char *name)
{
    const struct {
        const char *name;
        MPI_Op op;
    } ops[] = {{"sum", MPI_SUM}, {"prod", MPI_PROD}, {"min", MPI_MIN},  {"max", MPI_MAX},
               {"band", MPI_BAND}, {"bor", MPI_BOR},   {"bxor", MPI_BXOR}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(name, ops[i].name) == 0)
            return ops[i].op;
    return MPI_OP_NULL;
}

static void parse(void)
{
    if (fault.parsed)
        return;
    fault.parsed = 1;
    fault.rank = -1;
    const char *spec = getenv("PGCHECK_FAULT");
    if (spec == NULL || *spec == '\0')
        return;
    char copy[512];
    if (strlen(spec) >= sizeof copy)
        bad_spec(spec, "too long");
    strcpy(copy, spec);

    char *colon = strchr(copy, ':');
    if (colon == NULL)
        bad_spec(spec, "expected <MPI function>:<kind>[,rank=R][,bytes=B]");
    *colon = '\0';
    int known = strcmp(copy, "*") == 0;
    for (const char *const *f = supported; *f != NULL; f++)
        known |= strcmp(copy, *f) == 0;
    if (!known)
        bad_spec(spec, "not an interposed function (MPI_Allreduce, MPI_Reduce, MPI_Bcast, "
                       "MPI_Allgather, MPI_Allgatherv, MPI_Gather, MPI_Gatherv, "
                       "MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan, "
                       "MPI_Exscan, MPI_Alltoall, MPI_Scatter, MPI_Barrier, MPI_Ssend, "
                       "MPI_Put)");
    strcpy(fault.function, copy);

    char *save = NULL;
    char *kind = strtok_r(colon + 1, ",", &save);
    long long value;
    if (kind == NULL)
        bad_spec(spec, "no kind (flip, saturate, nowrite, delay=US)");
    if (strcmp(kind, "flip") == 0)
        fault.kind = FLIP;
    else if (strcmp(kind, "saturate") == 0)
        fault.kind = SATURATE;
    else if (strcmp(kind, "nowrite") == 0)
        fault.kind = NOWRITE;
    else if (strcmp(kind, "twice") == 0)
        fault.kind = TWICE;
    else if (strcmp(kind, "blocking") == 0)
        fault.kind = BLOCKING;
    else if (strcmp(kind, "noop") == 0)
        fault.kind = NOOP;
    else if (strcmp(kind, "hang") == 0)
        fault.kind = HANG;
    else if (strcmp(kind, "abort") == 0)
        fault.kind = ABORT;
    else if (strncmp(kind, "exit=", 5) == 0 && number(kind + 5, &value) && value < 256) {
        fault.kind = EXIT;
        fault.exit_status = (int)value;
    }
    else if (strncmp(kind, "delay=", 6) == 0 && number(kind + 6, &value)) {
        fault.kind = DELAY;
        fault.delay_us = (long)value;
    } else if (strncmp(kind, "scale=", 6) == 0 && number(kind + 6, &value) && value >= 100) {
        fault.kind = SCALE;
        fault.scale_percent = (long)value;
    } else if (strncmp(kind, "slow=", 5) == 0 && number(kind + 5, &value) && value >= 100) {
        fault.kind = SLOW;
        fault.scale_percent = (long)value;
    } else
        bad_spec(spec, "kind must be flip, saturate, nowrite, twice, blocking, noop, delay=US, "
                       "scale=P or slow=P (P >= 100), hang, exit=S or abort");

    for (char *opt = strtok_r(NULL, ",", &save); opt != NULL; opt = strtok_r(NULL, ",", &save)) {
        if (strcmp(opt, "inplace") == 0) {
            fault.in_place_only = 1;
            continue;
        }
        if (strcmp(opt, "comm=permuted") == 0) {
            fault.permuted_only = 1;
            continue;
        }
        if (strncmp(opt, "rank=", 5) == 0 && number(opt + 5, &value) && value <= 1 << 30)
            fault.rank = (int)value;
        else if (strncmp(opt, "bytes=", 6) == 0 && number(opt + 6, &value)) {
            if (fault.nbytes == MAX_BYTES)
                bad_spec(spec, "more than 8 bytes= options");
            fault.bytes[fault.nbytes++] = value;
        } else if (strncmp(opt, "after=", 6) == 0 && number(opt + 6, &value))
            fault.after = value;
        else if (strncmp(opt, "every=", 6) == 0 && number(opt + 6, &value) && value > 0)
            fault.every = value;
        else if (strncmp(opt, "for=", 4) == 0 && number(opt + 4, &value) && value > 0)
            fault.for_ms = value;
        else if (strncmp(opt, "op=", 3) == 0 && op_named(opt + 3) != MPI_OP_NULL)
            strcpy(fault.op, opt + 3);
        else if (strncmp(opt, "type=", 5) == 0 && strlen(opt + 5) < sizeof fault.type &&
                 (strcmp(opt + 5, "double") == 0 || strcmp(opt + 5, "float") == 0 ||
                  strcmp(opt + 5, "int32") == 0 || strcmp(opt + 5, "int64") == 0 ||
                  strcmp(opt + 5, "uint8") == 0))
            strcpy(fault.type, opt + 5);
        else
            bad_spec(spec, "options are rank=R, bytes=B, after=N, every=M, for=MS (decimal numbers), "
                           "type=double|float|int32|int64|uint8, op=sum|prod|min|max|band|bor|bxor, "
                           "inplace and comm=permuted");
    }
    fault.active = 1;
}

/* The real MPI_Init* run first: MPI_Abort needs an initialised library. */
int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    parse();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    parse();
    return rc;
}

/* The output of one call on this process, as blocks of elements of `type`
 * at element displacements from `buf`. */
struct output {
    void *buf; /* NULL where this process has no output */
    MPI_Datatype type;
    int nblocks;
    const int *counts; /* NULL: one block of `count` at displacement 0 */
    const int *displs;
    int count;
    long long size; /* the call's size in bytes, for bytes= */
};

struct call {
    struct output out;
    int selected; /* the fault applies on this process */
    void *scratch; /* nowrite: where the real call writes instead */
    int in_place; /* the call has MPI_IN_PLACE (for inplace) */
    MPI_Op op; /* the reduction's operator; left zero by the others */
    struct timespec start; /* scale, slow: when the real call began */
    const char *function; /* slow: whose usual time */
};

static long long type_size(MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return size;
}

static long long type_extent(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type, &lb, &extent);
    return (long long)extent;
}

static int block_count(const struct output *o, int i)
{
    return o->counts ? o->counts[i] : o->count;
}

static long long block_displ(const struct output *o, int i)
{
    return o->displs ? o->displs[i] : 0;
}

static long long sum(const int *counts, int n)
{
    long long total = 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    return total;
}

/* Bytes of data in the output, and bytes of memory it spans. */
static long long output_bytes(const struct output *o)
{
    long long n = 0;
    for (int i = 0; i < o->nblocks; i++)
        n += block_count(o, i);
    return n * type_size(o->type);
}

static long long output_span(const struct output *o)
{
    long long end = 0, extent = type_extent(o->type);
    for (int i = 0; i < o->nblocks; i++) {
        long long e = (block_displ(o, i) + block_count(o, i)) * extent;
        if (e > end)
            end = e;
    }
    return end;
}

/* Whether `type` is the datatype that type= names. */
static int type_matches(MPI_Datatype type)
{
    const char *t = fault.type;
    if (*t == '\0')
        return 1;
    if (type == MPI_DATATYPE_NULL)
        return 0;
    if (strcmp(t, "double") == 0)
        return type == MPI_DOUBLE;
    if (strcmp(t, "float") == 0)
        return type == MPI_FLOAT;
    if (strcmp(t, "int32") == 0)
        return type == MPI_INT32_T || type == MPI_INT;
    if (strcmp(t, "int64") == 0)
        return type == MPI_INT64_T || type == MPI_LONG || type == MPI_LONG_LONG;
    return type == MPI_UINT8_T || type == MPI_UNSIGNED_CHAR || type == MPI_BYTE;
}

/* Whether this matching call is one the fault spares: before after=,
 * past the window of for=, or not an every=th one. */
static int spared(void)
{
    long long k = ++fault.matched - fault.after;
    if (k <= 0)
        return 1;
    if (fault.for_ms > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!fault.window_started) {
            fault.window_started = 1;
            fault.window_start = now;
        }
        long long ms = (now.tv_sec - fault.window_start.tv_sec) * 1000LL +
                       (now.tv_nsec - fault.window_start.tv_nsec) / 1000000LL;
        if (ms >= fault.for_ms)
            return 1;
    }
    return fault.every > 0 && k % fault.every != 0;
}

/* The faults that replace the call: never return, exit, crash. */
static void replace_call(void)
{
    switch (fault.kind) {
    case HANG:
        for (;;) {
            struct timespec second = {1, 0};
            nanosleep(&second, NULL);
        }
    case EXIT:
        exit(fault.exit_status);
    case ABORT:
        abort();
    default:
        break;
    }
}

/* Whether the fault applies to this call of `function` on this process,
 * and for nowrite the buffer the real call must write into (the caller's
 * otherwise). */
/* Whether comm=permuted, if given, matches `comm`. */
static int comm_matches(MPI_Comm comm)
{
    if (!fault.permuted_only)
        return 1;
    int relation = MPI_UNEQUAL;
    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &relation);
    return relation == MPI_SIMILAR;
}

static void *begin(struct call *c, const char *function, MPI_Comm comm)
{
    c->selected = 0;
    c->scratch = NULL;
    parse();
    if (!fault.active || (strcmp(fault.function, "*") != 0 && strcmp(function, fault.function) != 0))
        return c->out.buf;
    if (fault.in_place_only && !c->in_place)
        return c->out.buf;
    if (fault.nbytes > 0) {
        int match = 0;
        for (int i = 0; i < fault.nbytes; i++)
            match |= fault.bytes[i] == c->out.size;
        if (!match)
            return c->out.buf;
    }
    if (*fault.op != '\0' && c->op != op_named(fault.op))
        return c->out.buf;
    if (!type_matches(c->out.type) || !comm_matches(comm) || spared())
        return c->out.buf;
    int rank;
    PMPI_Comm_rank(comm, &rank);
    if (fault.rank >= 0 && fault.rank != rank)
        return c->out.buf;
    replace_call();
    /* A delay (or a barrier's noop) needs no output; the other faults only
     * where one exists. */
    if (fault.kind != DELAY && fault.kind != SCALE && fault.kind != SLOW && fault.kind != NOOP &&
        c->out.buf == NULL)
        return c->out.buf;
    c->selected = 1;
    c->function = function;
    clock_gettime(CLOCK_MONOTONIC, &c->start);
    if (fault.kind == NOWRITE) {
        long long span = output_span(&c->out);
        if (span == 0)
            return c->out.buf;
        c->scratch = malloc((size_t)span);
        if (c->scratch == NULL) {
            fprintf(stderr, "pmpi_faults: no memory for %lld bytes of scratch\n", span);
            PMPI_Abort(MPI_COMM_WORLD, 4);
        }
        /* With MPI_IN_PLACE the output buffer is also the input: the real
         * call must see it, so the scratch starts as a copy. */
        memcpy(c->scratch, c->out.buf, (size_t)span);
        return c->scratch;
    }
    return c->out.buf;
}

static long long nanoseconds(const struct timespec *t)
{
    return t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* slow=: the usual time of each (function, size) struck, in nanoseconds:
 * the exact median of its first EXACT_USUAL durations, then a running
 * median (each duration moves it 0.5 % of itself towards it). */
#define MAX_USUAL 64
#define EXACT_USUAL 16
static struct usual {
    const char *function;
    long long size;
    int values;
    long long first[EXACT_USUAL];
    double estimate;
} usuals[MAX_USUAL];
static int nusuals;

static double usual_ns(const char *function, long long size, long long took)
{
    struct usual *u = NULL;
    for (int i = 0; i < nusuals && u == NULL; i++)
        if (usuals[i].size == size && strcmp(usuals[i].function, function) == 0)
            u = &usuals[i];
    if (u == NULL) {
        if (nusuals == MAX_USUAL)
            return (double)took;
        u = &usuals[nusuals++];
        u->function = function;
        u->size = size;
    }
    if (u->values < EXACT_USUAL) {
        int i = u->values++;
        for (; i > 0 && u->first[i - 1] > took; i--)
            u->first[i] = u->first[i - 1];
        u->first[i] = took;
        u->estimate = (double)u->first[u->values / 2];
    } else if ((double)took > u->estimate)
        u->estimate *= 1.005;
    else if ((double)took < u->estimate)
        u->estimate *= 0.995;
    return u->estimate;
}

/* Spins until the call begun at `start` has taken `percent` % of the time
 * it took so far. */
static void stretch(const struct timespec *start, long percent)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long until = nanoseconds(start) + (nanoseconds(&now) - nanoseconds(start)) * percent / 100;
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while (nanoseconds(&now) < until);
}

static void spin_ns(long long ns)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long until = nanoseconds(&now) + ns;
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while (nanoseconds(&now) < until);
}

/* The address of data byte `k` of the output (contiguous datatypes). */
static unsigned char *data_byte(const struct output *o, long long k)
{
    long long size = type_size(o->type), extent = type_extent(o->type);
    long long element = k / size;
    for (int i = 0; i < o->nblocks; i++) {
        long long n = block_count(o, i);
        if (element < n)
            return (unsigned char *)o->buf + (block_displ(o, i) + element) * extent + k % size;
        element -= n;
    }
    return NULL;
}

static void end(struct call *c)
{
    if (!c->selected)
        return;
    struct output *o = &c->out;
    switch (fault.kind) {
    case FLIP: {
        long long bytes = output_bytes(o);
        if (bytes > 0)
            *data_byte(o, bytes / 2) ^= 1;
        break;
    }
    case SATURATE: {
        long long extent = type_extent(o->type);
        for (int i = 0; i < o->nblocks; i++)
            memset((char *)o->buf + block_displ(o, i) * extent, 0xFF,
                   (size_t)(block_count(o, i) * extent));
        break;
    }
    case NOWRITE:
        free(c->scratch);
        break;
    case DELAY:
        spin_ns(fault.delay_us * 1000);
        break;
    case SCALE:
        stretch(&c->start, fault.scale_percent);
        break;
    case SLOW: {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double usual = usual_ns(c->function, c->out.size, nanoseconds(&now) - nanoseconds(&c->start));
        spin_ns((long long)(usual * (fault.scale_percent - 100) / 100.0));
        break;
    }
    case TWICE: /* the caller knows the input and the operator */
    case HANG:
    case EXIT:
    case ABORT:
        break;
    }
}

/* A single block of `count` elements: the vector collectives' output. */
static struct output single(void *buf, int count, MPI_Datatype type, long long size)
{
    struct output o = {buf, type, 1, NULL, NULL, count, size};
    return o;
}

static int comm_size(MPI_Comm comm)
{
    int size;
    PMPI_Comm_size(comm, &size);
    return size;
}

static int comm_rank(MPI_Comm comm)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    struct call c = {single(recvbuf, count, type, count * type_size(type)), 0, NULL};
    c.op = op;
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Allreduce", comm);
    int rc = PMPI_Allreduce(sendbuf, out, count, type, op, comm);
    if (c.selected && fault.kind == TWICE && sendbuf != MPI_IN_PLACE)
        PMPI_Reduce_local(sendbuf, recvbuf, count, type, op);
    end(&c);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    void *defined = comm_rank(comm) == root ? recvbuf : NULL;
    struct call c = {single(defined, count, type, count * type_size(type)), 0, NULL};
    c.op = op;
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Reduce", comm);
    int rc = PMPI_Reduce(sendbuf, out ? out : recvbuf, count, type, op, root, comm);
    end(&c);
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    /* The root's buffer is its input: only the others have an output. */
    void *defined = comm_rank(comm) == root ? NULL : buffer;
    struct call c = {single(defined, count, type, count * type_size(type)), 0, NULL};
    void *out = begin(&c, "MPI_Bcast", comm);
    int rc = PMPI_Bcast(out ? out : buffer, count, type, root, comm);
    end(&c);
    return rc;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    struct call c = {single(recvbuf, count, type, count * type_size(type)), 0, NULL};
    c.op = op;
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Scan", comm);
    int rc = PMPI_Scan(sendbuf, out, count, type, op, comm);
    end(&c);
    return rc;
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    /* Rank 0's receive buffer is undefined after MPI_Exscan. */
    void *defined = comm_rank(comm) == 0 ? NULL : recvbuf;
    struct call c = {single(defined, count, type, count * type_size(type)), 0, NULL};
    c.op = op;
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Exscan", comm);
    int rc = PMPI_Exscan(sendbuf, out ? out : recvbuf, count, type, op, comm);
    end(&c);
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct call c = {single(recvbuf, recvcount * comm_size(comm), recvtype,
                            recvcount * type_size(recvtype)),
                     0, NULL};
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Allgather", comm);
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, out, recvcount, recvtype, comm);
    end(&c);
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    struct call c = {single(recvbuf, recvcount * comm_size(comm), recvtype,
                            recvcount * type_size(recvtype)),
                     0, NULL};
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Alltoall", comm);
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, out, recvcount, recvtype, comm);
    end(&c);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    int p = comm_size(comm);
    struct output o = {recvbuf, recvtype, p, recvcounts, displs, 0,
                       sum(recvcounts, p) * type_size(recvtype)};
    struct call c = {o, 0, NULL};
    void *out = begin(&c, "MPI_Allgatherv", comm);
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, out, recvcounts, displs, recvtype,
                             comm);
    end(&c);
    return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct output o;
    if (comm_rank(comm) == root)
        o = single(recvbuf, recvcount * comm_size(comm), recvtype,
                   recvcount * type_size(recvtype));
    else /* the receive arguments mean nothing here */
        o = single(NULL, 0, sendtype, sendcount * type_size(sendtype));
    struct call c = {o, 0, NULL};
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Gather", comm);
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, out ? out : recvbuf, recvcount, recvtype,
                         root, comm);
    end(&c);
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    int p = comm_size(comm);
    struct output o;
    if (comm_rank(comm) == root) {
        struct output at_root = {recvbuf, recvtype, p, recvcounts, displs, 0,
                                 sum(recvcounts, p) * type_size(recvtype)};
        o = at_root;
    } else
        o = single(NULL, 0, sendtype, sendcount * type_size(sendtype) * p);
    struct call c = {o, 0, NULL};
    void *out = begin(&c, "MPI_Gatherv", comm);
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, out ? out : recvbuf, recvcounts, displs,
                          recvtype, root, comm);
    end(&c);
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    /* With MPI_IN_PLACE the root keeps its block where it is: no output. */
    void *defined = recvbuf == MPI_IN_PLACE ? NULL : recvbuf;
    long long size = recvbuf == MPI_IN_PLACE ? sendcount * type_size(sendtype)
                                             : recvcount * type_size(recvtype);
    struct call c = {single(defined, recvcount, recvtype, size), 0, NULL};
    c.in_place = recvbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Scatter", comm);
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, out ? out : recvbuf, recvcount, recvtype,
                          root, comm);
    end(&c);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    struct call c = {single(recvbuf, recvcount, type, recvcount * type_size(type)), 0, NULL};
    c.op = op;
    /* In place, the input is p blocks in recvbuf: the scratch must hold
     * (and start as a copy of) all of them. */
    if (sendbuf == MPI_IN_PLACE)
        c.out.count = recvcount * comm_size(comm);
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Reduce_scatter_block", comm);
    c.out.count = recvcount;
    int rc = PMPI_Reduce_scatter_block(sendbuf, out, recvcount, type, op, comm);
    end(&c);
    return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int p = comm_size(comm), rank = comm_rank(comm);
    long long total = sum(recvcounts, p);
    struct call c = {single(recvbuf, recvcounts[rank], type, total * type_size(type)), 0, NULL};
    c.op = op;
    if (sendbuf == MPI_IN_PLACE)
        c.out.count = (int)total;
    c.in_place = sendbuf == MPI_IN_PLACE;
    void *out = begin(&c, "MPI_Reduce_scatter", comm);
    c.out.count = recvcounts[rank];
    int rc = PMPI_Reduce_scatter(sendbuf, out, recvcounts, type, op, comm);
    end(&c);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    /* No data: only noop, delay, hang, exit and abort apply. */
    struct call c = {single(NULL, 0, MPI_DATATYPE_NULL, 0), 0, NULL};
    begin(&c, "MPI_Barrier", comm);
    if (c.selected && fault.kind == NOOP)
        return MPI_SUCCESS;
    int rc = PMPI_Barrier(comm);
    end(&c);
    return rc;
}

typedef int (*allreduce_init_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm,
                                 MPI_Info, MPI_Request *);

/* The persistent allreduce under either name: the real one is the next
 * definition of MPI-4's name, else of the MPIX_ one. The scratch of
 * nowrite is never freed: a request may be started until it is freed,
 * and a test makes few. */
static int allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    allreduce_init_fn real = (allreduce_init_fn)dlsym(RTLD_NEXT, "MPI_Allreduce_init");
    if (real == NULL)
        real = (allreduce_init_fn)dlsym(RTLD_NEXT, "MPIX_Allreduce_init");
    if (real == NULL) {
        fprintf(stderr, "pmpi_faults: the library has no persistent allreduce\n");
        PMPI_Abort(MPI_COMM_WORLD, 4);
    }
    struct call c = {single(recvbuf, count, type, count * type_size(type)), 0, NULL};
    c.op = op;
    c.in_place = sendbuf == MPI_IN_PLACE;
    parse();
    void *out = fault.kind == NOWRITE ? begin(&c, "MPI_Allreduce_init", comm) : recvbuf;
    return real(sendbuf, out, count, type, op, comm, info, request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allreduce_init(sendbuf, recvbuf, count, type, op, comm, info, request);
}

int MPIX_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return allreduce_init(sendbuf, recvbuf, count, type, op, comm, info, request);
}

/* MPI_Iallreduce: with blocking, done before it returns. */
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    parse();
    if (fault.active && fault.kind == BLOCKING && strcmp(fault.function, "MPI_Iallreduce") == 0) {
        *request = MPI_REQUEST_NULL;
        return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    }
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

/* The copies flip and saturate corrupt instead of a sender's buffer. A
 * put's must live until its epoch ends, after the call returns: a ring of
 * copies, each reused only SENT_COPIES sends later (a halo puts two per
 * epoch). */
#define SENT_COPIES 8
static void *sent_copy[SENT_COPIES];
static size_t sent_bytes[SENT_COPIES];
static int sent_next;

/* What a selected MPI_Ssend or MPI_Put sends: a corrupted copy of `buf`
 * for flip and saturate (the fault's `end` applied to it), else `buf`. */
static const void *sent(struct call *c, const void *buf)
{
    if (!c->selected || (fault.kind != FLIP && fault.kind != SATURATE))
        return buf;
    size_t bytes = (size_t)c->out.size;
    int slot = sent_next++ % SENT_COPIES;
    if (sent_bytes[slot] < bytes) {
        free(sent_copy[slot]);
        sent_copy[slot] = malloc(bytes);
        sent_bytes[slot] = bytes;
        if (sent_copy[slot] == NULL) {
            fprintf(stderr, "pmpi_faults: no memory for %zu bytes of a copy\n", bytes);
            PMPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    memcpy(sent_copy[slot], buf, bytes);
    c->out.buf = sent_copy[slot];
    end(c);
    c->selected = 0; /* corrupted: nothing left for `end` after the call */
    return sent_copy[slot];
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    struct call c = {single((void *)buf, count, type, count * type_size(type)), 0, NULL};
    begin(&c, "MPI_Ssend", comm);
    int rc = PMPI_Ssend(sent(&c, buf), count, type, dest, tag, comm);
    end(&c);
    return rc;
}

int MPI_Put(const void *origin, int origin_count, MPI_Datatype origin_type, int target,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win)
{
    struct call c = {
        single((void *)origin, origin_count, origin_type, origin_count * type_size(origin_type)),
        0, NULL};
    begin(&c, "MPI_Put", MPI_COMM_WORLD);
    int rc = PMPI_Put(sent(&c, origin), origin_count, origin_type, target, target_disp,
                      target_count, target_type, win);
    end(&c);
    return rc;
}

static long long windows_created, windows_freed;

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    windows_created++;
    return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

int MPI_Win_free(MPI_Win *win)
{
    windows_freed++;
    return PMPI_Win_free(win);
}

int MPI_Finalize(void)
{
    if (getenv("PGCHECK_COUNT_WINDOWS") != NULL) {
        int rank = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "pmpi_faults: rank %d created %lld windows, freed %lld\n", rank,
                windows_created, windows_freed);
        fflush(stderr);
    }
    return PMPI_Finalize();
}
