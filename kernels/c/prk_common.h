/*
 * Shared plumbing for the Twelve Ways C kernels: timer, argument checks, aligned memory and
 * the one-JSON-object output contract (DESIGN.md "Kernel contract").
 *
 * Why one header: every kernel must time, validate and report in exactly the same way, so the
 * results store and the statistics can treat all implementations alike. Each kernel is a single
 * translation unit; everything here is static.
 *
 * Build variants: plain C (serial), with -fopenmp (_OPENMP, OpenMP), or with mpicc and
 * -DPRK_MPI (MPI: timer MPI_Wtime, per-rank times gathered on rank 0, which prints).
 *
 * Exit codes: 0 valid, 1 validation failed (JSON still printed, "valid": false),
 * 2 bad arguments (one line "error: ..." on stderr, no JSON), 3 runtime failure (allocation).
 */
#ifndef PRK_COMMON_H
#define PRK_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef PRK_MPI
#include <mpi.h>
#endif

#define PRK_EPSILON 1.0e-8
/* Helpers are static and may go unused by a given kernel. */
#define PRK_FN static __attribute__((unused))
#define PRK_ALIGN 64

#if defined(PRK_MPI)
#define PRK_IMPLEMENTATION "c-mpi"
#elif defined(_OPENMP)
#define PRK_IMPLEMENTATION "c-openmp"
#else
#define PRK_IMPLEMENTATION "c-serial"
#endif

/* ---------------------------------------------------------------- ranks ---- */

PRK_FN int prk_rank_id(void)
{
#ifdef PRK_MPI
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
#else
    return 0;
#endif
}

PRK_FN int prk_rank_count(void)
{
#ifdef PRK_MPI
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
#else
    return 1;
#endif
}

/* The real number of OpenMP threads a parallel region gets (1 without OpenMP). */
PRK_FN int prk_thread_count(void)
{
#ifdef _OPENMP
    int n = 1;
#pragma omp parallel
    {
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
#else
    return 1;
#endif
}

/* ---------------------------------------------------------------- timer ---- */

PRK_FN double prk_now(void)
{
#ifdef PRK_MPI
    return MPI_Wtime();
#else
    /* seconds since the first call, so the double keeps nanosecond precision on long uptimes */
    static time_t base = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (base < 0) base = ts.tv_sec;
    return (double)(ts.tv_sec - base) + 1.0e-9 * (double)ts.tv_nsec;
#endif
}

PRK_FN const char *prk_timer_name(void)
{
#ifdef PRK_MPI
    return "MPI_Wtime";
#else
    return "clock_gettime(CLOCK_MONOTONIC)";
#endif
}

PRK_FN double prk_timer_resolution(void)
{
#ifdef PRK_MPI
    return MPI_Wtick();
#else
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return NAN;
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
#endif
}

/* ------------------------------------------------------------- failures ---- */

PRK_FN __attribute__((noreturn)) void prk_exit(int code)
{
#ifdef PRK_MPI
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Finalize();
#endif
    exit(code);
}

/* Bad arguments: one line on stderr (rank 0 only) and exit 2. Every rank sees the same
 * arguments, so every rank reaches this call and leaves cleanly (no MPI abort banner). */
PRK_FN __attribute__((noreturn, format(printf, 1, 2))) void prk_bad_args(const char *fmt, ...)
{
    if (prk_rank_id() == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("error: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        fflush(stderr);
    }
    prk_exit(2);
}

/* A failure that is not the user's arguments (e.g. out of memory): one line, exit 3. */
PRK_FN __attribute__((noreturn, format(printf, 1, 2))) void prk_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: rank %d: ", prk_rank_id());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
#ifdef PRK_MPI
    MPI_Abort(MPI_COMM_WORLD, 3);
#endif
    exit(3);
}

/* A whole decimal integer in [lo, hi]; anything else (junk, overflow) is a bad argument. */
PRK_FN long prk_arg_long(const char *text, const char *what, long lo, long hi)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE)
        prk_bad_args("%s must be an integer, got '%s'", what, text);
    if (value < lo || value > hi)
        prk_bad_args("%s must be in [%ld, %ld], got %ld", what, lo, hi, value);
    return value;
}

PRK_FN void prk_check_argc(int argc, int min_args, int max_args, const char *usage)
{
    int given = argc - 1;
    if (given < min_args || given > max_args)
    {
        if (max_args > min_args)
            prk_bad_args("expected %d to %d arguments, got %d; usage: %s", min_args, max_args, given, usage);
        prk_bad_args("expected %d arguments, got %d; usage: %s", min_args, given, usage);
    }
}

/* ----------------------------------------------------------------- memory ---- */

/* 64-byte aligned, and transparent huge pages where the kernel offers them (fewer TLB misses
 * for the strided accesses of transpose and the large streams of nstream). */
PRK_FN void *prk_alloc(size_t bytes)
{
    void *p = NULL;
    size_t align = bytes >= (size_t)4 << 20 ? (size_t)2 << 20 : PRK_ALIGN;
    size_t rounded = (bytes + align - 1) / align * align;
    if (rounded == 0) rounded = align;
    if (posix_memalign(&p, align, rounded) != 0 || p == NULL)
        prk_die("cannot allocate %zu bytes", bytes);
#ifdef MADV_HUGEPAGE
    if (align > PRK_ALIGN) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

/* Element count a*b*c with overflow checks, so absurd sizes are bad arguments, not crashes. */
PRK_FN size_t prk_mul_size(size_t a, size_t b, const char *what)
{
    if (a != 0 && b > SIZE_MAX / a) prk_bad_args("%s is too large to allocate", what);
    return a * b;
}

/* Test-only: TW_PRK_PERTURB=1 asks the kernel to spoil one result element before validation. */
PRK_FN int prk_perturb(void)
{
    const char *v = getenv("TW_PRK_PERTURB");
    return v != NULL && strcmp(v, "1") == 0;
}

/* ------------------------------------------------------------------- JSON ---- */

/* Small append-only string builder for the "parameters" and "details" objects. */
typedef struct {
    char text[2048];
    size_t used;
} prk_json_t;

PRK_FN void prk_json_raw(prk_json_t *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = sizeof(j->text) - j->used;
    int n = vsnprintf(j->text + j->used, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) prk_die("JSON fragment too long");
    j->used += (size_t)n;
}

PRK_FN void prk_json_sep(prk_json_t *j)
{
    if (j->used > 0) prk_json_raw(j, ", ");
}

PRK_FN void prk_json_int(prk_json_t *j, const char *key, long long v)
{
    prk_json_sep(j);
    prk_json_raw(j, "\"%s\": %lld", key, v);
}

/* Shortest of %.15g/%.16g/%.17g that reads back as the same double; non-finite -> null (strict JSON). */
PRK_FN const char *prk_fmt_num(char *buf, size_t size, double v)
{
    if (!isfinite(v)) return "null";
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

PRK_FN void prk_json_num(prk_json_t *j, const char *key, double v)
{
    char buf[40];
    prk_json_sep(j);
    prk_json_raw(j, "\"%s\": %s", key, prk_fmt_num(buf, sizeof(buf), v));
}

PRK_FN void prk_json_str(prk_json_t *j, const char *key, const char *v)
{
    prk_json_sep(j);
    prk_json_raw(j, "\"%s\": \"%s\"", key, v);
}

PRK_FN void prk_json_bool(prk_json_t *j, const char *key, int v)
{
    prk_json_sep(j);
    prk_json_raw(j, "\"%s\": %s", key, v ? "true" : "false");
}

PRK_FN void prk_print_num(double v)
{
    char buf[40];
    fputs(prk_fmt_num(buf, sizeof(buf), v), stdout);
}

/* Everything a kernel knows at the end of its run, besides the times. */
typedef struct {
    const char *kernel;
    int iterations;
    long long size;          /* the primary size: the first size argument as given */
    prk_json_t parameters;   /* must include "iterations" and the size arguments */
    double bytes;            /* compulsory memory traffic per iteration (see README.md) */
    double flops;            /* floating-point operations executed per iteration */
    int rate_in_bytes;       /* 1: rate in MB/s from bytes; 0: MFlop/s from flops */
    double error;            /* validation error, compared with tolerance */
    double tolerance;
    prk_json_t details;      /* checksums and reference values */
    int valid;
    int threads;
} prk_report_t;

PRK_FN void prk_report_init(prk_report_t *r, const char *kernel, int iterations, long long size)
{
    memset(r, 0, sizeof(*r));
    r->kernel = kernel;
    r->iterations = iterations;
    r->size = size;
    r->tolerance = PRK_EPSILON;
    r->threads = 1;
    prk_json_int(&r->parameters, "iterations", iterations);
}

/*
 * Print the JSON object (rank 0) and exit with the contract's code.
 * `times` holds this rank's iterations+1 durations (index 0 = warm-up). Under MPI every rank
 * calls this; rank 0 gathers all ranks' times; `valid` must already agree on all ranks.
 */
PRK_FN void prk_finish(prk_report_t *r, const double *times)
{
    const int ranks = prk_rank_count();
    const int me = prk_rank_id();
    const int per = r->iterations + 1;
    double *all = NULL;
    if (me == 0) all = (double *)malloc(sizeof(double) * (size_t)per * (size_t)ranks);
#ifdef PRK_MPI
    MPI_Gather(times, per, MPI_DOUBLE, all, per, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#else
    if (all) memcpy(all, times, sizeof(double) * (size_t)per);
#endif
    if (me == 0) {
        if (!all) prk_die("cannot allocate the timing table");
        double *maxima = (double *)malloc(sizeof(double) * (size_t)r->iterations);
        double sum = 0.0;
        for (int i = 1; i <= r->iterations; i++) {
            double m = all[i];
            for (int q = 1; q < ranks; q++)
                if (all[(size_t)q * per + i] > m) m = all[(size_t)q * per + i];
            maxima[i - 1] = m;
            sum += m;
        }
        const double avg = sum / r->iterations;
        const double work = r->rate_in_bytes ? r->bytes : r->flops;
        const double rate = avg > 0.0 ? 1.0e-6 * work / avg : NAN;

        printf("{\"kernel\": \"%s\", \"implementation\": \"%s\", \"ranks\": %d, \"threads\": %d, ",
               r->kernel, PRK_IMPLEMENTATION, ranks, r->threads);
        printf("\"parameters\": {%s}, \"size\": %lld, \"dtype\": \"fp64\", ", r->parameters.text, r->size);
        printf("\"timer\": {\"name\": \"%s\", \"resolution_s\": ", prk_timer_name());
        prk_print_num(prk_timer_resolution());
        printf("}, \"warmup_times\": [");
        for (int q = 0; q < ranks; q++) {
            if (q) printf(", ");
            prk_print_num(all[(size_t)q * per]);
        }
        printf("], \"iteration_times\": [");
        for (int q = 0; q < ranks; q++) {
            printf(q ? ", [" : "[");
            for (int i = 1; i <= r->iterations; i++) {
                if (i > 1) printf(", ");
                prk_print_num(all[(size_t)q * per + i]);
            }
            printf("]");
        }
        printf("], \"iteration_max_times\": [");
        for (int i = 0; i < r->iterations; i++) {
            if (i) printf(", ");
            prk_print_num(maxima[i]);
        }
        printf("], \"time_summary\": \"per-iteration max over ranks; rate from the arithmetic mean "
               "of iterations 1..N\", ");
        printf("\"bytes_per_iteration\": ");
        prk_print_num(r->bytes);
        printf(", \"flops_per_iteration\": ");
        prk_print_num(r->flops);
        printf(", \"validation\": {\"error\": ");
        prk_print_num(r->error);
        printf(", \"tolerance\": ");
        prk_print_num(r->tolerance);
        printf(", \"details\": {%s}}, \"valid\": %s, \"rate\": ", r->details.text,
               r->valid ? "true" : "false");
        prk_print_num(rate);
        printf(", \"rate_unit\": \"%s\", \"avg_time_s\": ", r->rate_in_bytes ? "MB/s" : "MFlop/s");
        prk_print_num(avg);
        printf("}\n");
        fflush(stdout);
        fprintf(stderr, "%s %s: %s, rate %.1f %s, avg time %.6f s\n", r->kernel, PRK_IMPLEMENTATION,
                r->valid ? "solution validates" : "VALIDATION FAILED", rate,
                r->rate_in_bytes ? "MB/s" : "MFlop/s", avg);
        free(maxima);
        free(all);
    }
    prk_exit(r->valid ? 0 : 1);
}

/* Validity decided on rank 0, shared with everyone so every rank exits with the same code. */
PRK_FN int prk_share_flag(int flag)
{
#ifdef PRK_MPI
    MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return flag;
}

/* Barrier that starts every MPI iteration (a no-op otherwise). */
PRK_FN void prk_iteration_barrier(void)
{
#ifdef PRK_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

/* An even block split of n items over p parts: part q gets [start, start+len). */
PRK_FN void prk_block(long n, int p, int q, long *start, long *len)
{
    long base = n / p, extra = n % p;
    *len = base + (q < extra ? 1 : 0);
    *start = q * base + (q < extra ? q : extra);
}

#endif /* PRK_COMMON_H */
