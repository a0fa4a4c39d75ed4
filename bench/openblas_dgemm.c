/*
 * The OpenBLAS reference for `make bench`'s "dgemm vs OpenBLAS": the same computation and the same
 * timing as kernels/c/dgemm.c (C += A*B on order x order row-major matrices, A[i][j] = B[i][j] = j,
 * iteration 0 a timed warm-up, rate = 2 n^3 / mean of iterations 1..N), done by cblas_dgemm of the
 * OpenBLAS that NumPy ships (scipy-openblas, 64-bit integers, symbols prefixed scipy_ and suffixed 64_).
 * Threads: OPENBLAS_NUM_THREADS, read by OpenBLAS itself. Prints one JSON line.
 * Usage: openblas_dgemm <iterations> <order>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int64_t blasint;
enum { ROW_MAJOR = 101, NO_TRANS = 111 };
void scipy_cblas_dgemm64_(int order, int ta, int tb, blasint m, blasint n, blasint k, double alpha,
                          const double *a, blasint lda, const double *b, blasint ldb, double beta, double *c,
                          blasint ldc);
int scipy_openblas_get_num_threads64_(void);
char *scipy_openblas_get_corename64_(void);
char *scipy_openblas_get_config64_(void);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("error: usage: openblas_dgemm <iterations> <order>\n", stderr);
        return 2;
    }
    const int iterations = atoi(argv[1]);
    const long n = atol(argv[2]);
    if (iterations < 1 || n < 1) {
        fputs("error: iterations and order must be positive\n", stderr);
        return 2;
    }
    double *a = aligned_alloc(64, sizeof(double) * (size_t)(n * n + 8));
    double *b = aligned_alloc(64, sizeof(double) * (size_t)(n * n + 8));
    double *c = aligned_alloc(64, sizeof(double) * (size_t)(n * n + 8));
    if (!a || !b || !c) {
        fputs("error: out of memory\n", stderr);
        return 3;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = b[i * n + j] = (double)j;
            c[i * n + j] = 0.0;
        }
    double total = 0.0;
    for (int iter = 0; iter <= iterations; iter++) {
        const double t0 = now();
        scipy_cblas_dgemm64_(ROW_MAJOR, NO_TRANS, NO_TRANS, n, n, n, 1.0, a, n, b, n, 1.0, c, n);
        if (iter > 0) total += now() - t0;
    }
    const double fn = (double)n, avg = total / iterations;
    double checksum = 0.0;
    for (long i = 0; i < n * n; i++) checksum += c[i];
    const double reference = 0.25 * fn * fn * fn * (fn - 1.0) * (fn - 1.0) * (iterations + 1);
    const double error = reference != 0.0 ? (checksum - reference) / reference : checksum;
    printf("{\"rate\": %.6g, \"rate_unit\": \"MFlop/s\", \"avg_time_s\": %.9g, \"threads\": %d, "
           "\"valid\": %s, \"corename\": \"%s\", \"config\": \"%s\"}\n",
           2.0 * fn * fn * fn / avg * 1e-6, avg, scipy_openblas_get_num_threads64_(),
           (error < 1e-8 && error > -1e-8) ? "true" : "false", scipy_openblas_get_corename64_(),
           scipy_openblas_get_config64_());
    return 0;
}
