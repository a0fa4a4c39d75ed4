/*
 * PRK nstream (serial and OpenMP): A[j] += B[j] + scalar*C[j], with A=0, B=2, C=2, scalar=3.
 *
 * Validation (PRK): after iterations+1 sweeps every A[j] equals the scalar recurrence
 * a += 2 + 3*2 run iterations+1 times; the sum of A is compared with length*a, relative error.
 * Usage: nstream <iterations> <length>
 */
#include "prk_common.h"

#define SCALAR 3.0

/* OpenMP: dynamic chunks of 64 Ki elements (1.5 MiB of traffic each), so that on a shared machine
 * a thread that loses its core for a while does not hold the whole iteration back. */
#define CHUNK 65536

static void triad(double *restrict a, const double *restrict b, const double *restrict c, long n)
{
#ifdef _OPENMP
#pragma omp parallel for simd schedule(dynamic, CHUNK)
#else
#pragma GCC ivdep
#endif
    for (long j = 0; j < n; j++) a[j] += b[j] + SCALAR * c[j];
}

int main(int argc, char **argv)
{
    prk_check_argc(argc, 2, 2, "nstream <iterations> <length>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long length = prk_arg_long(argv[2], "length", 1, LONG_MAX / 64);
    const size_t bytes = prk_mul_size((size_t)length, sizeof(double), "length");

    double *a = prk_alloc(bytes), *b = prk_alloc(bytes), *c = prk_alloc(bytes);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));

    /* First touch with the same static schedule the sweeps use. */
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static)
#endif
    for (long j = 0; j < length; j++) {
        a[j] = 0.0;
        b[j] = 2.0;
        c[j] = 2.0;
    }

    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
        triad(a, b, c, length);
        times[iter] = prk_now() - t0;
    }

    if (prk_perturb()) a[length / 2] += 1.0e6 * (double)length;

    double ar = 0.0;
    for (int iter = 0; iter <= iterations; iter++) ar += 2.0 + SCALAR * 2.0;
    const double reference = ar * (double)length;
    double asum = 0.0;
#ifdef _OPENMP
#pragma omp parallel for simd schedule(static) reduction(+ : asum)
#endif
    for (long j = 0; j < length; j++) asum += fabs(a[j]);

    prk_report_t r;
    prk_report_init(&r, "nstream", iterations, length);
    prk_json_int(&r.parameters, "length", length);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 4.0 * sizeof(double) * (double)length);
    r.threads = prk_thread_count();
    r.bytes = 4.0 * sizeof(double) * (double)length; /* read A, B, C; write A */
    r.flops = 3.0 * (double)length;                 /* one multiply, two adds */
    r.rate_in_bytes = 1;
    r.error = fabs(reference - asum) / asum;
    r.valid = r.error <= r.tolerance;
    prk_json_num(&r.details, "checksum", asum);
    prk_json_num(&r.details, "reference_checksum", reference);
    prk_json_str(&r.details, "error_kind", "relative");
    prk_finish(&r, times);
    return 0;
}
