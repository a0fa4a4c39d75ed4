/*
 * PRK nstream (MPI): the global vector of <length> elements is split into contiguous blocks,
 * one per rank (uneven lengths allowed); each rank runs the triad on its block.
 * A barrier starts every iteration and each rank times its own iterations.
 * Usage: nstream-mpi <iterations> <length>   (length is the global length)
 */
#include "prk_common.h"

#define SCALAR 3.0

static void triad(double *restrict a, const double *restrict b, const double *restrict c, long n)
{
#pragma GCC ivdep
    for (long j = 0; j < n; j++) a[j] += b[j] + SCALAR * c[j];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int ranks = prk_rank_count(), me = prk_rank_id();
    prk_check_argc(argc, 2, 2, "nstream <iterations> <length>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long length = prk_arg_long(argv[2], "length", 1, LONG_MAX / 64);
    if (length < ranks) prk_bad_args("length %ld is smaller than the number of ranks %d", length, ranks);

    long start, n;
    prk_block(length, ranks, me, &start, &n);
    const size_t bytes = prk_mul_size((size_t)n, sizeof(double), "length");
    double *a = prk_alloc(bytes), *b = prk_alloc(bytes), *c = prk_alloc(bytes);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    for (long j = 0; j < n; j++) {
        a[j] = 0.0;
        b[j] = 2.0;
        c[j] = 2.0;
    }

    for (int iter = 0; iter <= iterations; iter++) {
        prk_iteration_barrier();
        double t0 = prk_now();
        triad(a, b, c, n);
        times[iter] = prk_now() - t0;
    }

    if (prk_perturb() && me == 0) a[0] += 1.0e6 * (double)length;

    double ar = 0.0;
    for (int iter = 0; iter <= iterations; iter++) ar += 2.0 + SCALAR * 2.0;
    const double reference = ar * (double)length;
    double local = 0.0, asum = 0.0;
    for (long j = 0; j < n; j++) local += fabs(a[j]);
    MPI_Reduce(&local, &asum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    prk_report_t r;
    prk_report_init(&r, "nstream", iterations, length);
    prk_json_int(&r.parameters, "length", length);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 4.0 * sizeof(double) * (double)length);
    r.bytes = 4.0 * sizeof(double) * (double)length;
    r.flops = 3.0 * (double)length;
    r.rate_in_bytes = 1;
    r.error = fabs(reference - asum) / asum;
    r.valid = prk_share_flag(me == 0 ? r.error <= r.tolerance : 0);
    prk_json_num(&r.details, "checksum", asum);
    prk_json_num(&r.details, "reference_checksum", reference);
    prk_json_str(&r.details, "error_kind", "relative");
    prk_finish(&r, times);
    return 0;
}
