/*
 * PRK stencil (serial and OpenMP): star stencil of radius r on an n x n grid.
 * in[i][j] = i + j (cx = cy = 1), out = 0; every iteration out += stencil(in) on the interior
 * (points at least r from the boundary), then in += 1 everywhere.
 *
 * Validation (PRK): the L1 norm of out over the interior divided by the number of interior
 * points equals (iterations+1)*(cx+cy); absolute error below epsilon.
 * Usage: stencil <iterations> <n> [radius]   (radius defaults to 2)
 */
#include "prk_common.h"
#include "stencil_core.h"

int main(int argc, char **argv)
{
    prk_check_argc(argc, 2, 3, "stencil <iterations> <n> [radius]");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long n = prk_arg_long(argv[2], "n", 1, 1L << 30);
    const int r = argc > 3 ? (int)prk_arg_long(argv[3], "radius", 1, 1000) : 2;
    if (2L * r + 1 > n) prk_bad_args("stencil diameter 2*%d+1 exceeds grid size %ld", r, n);
    const size_t elems = prk_mul_size((size_t)n, (size_t)n, "n");
    const size_t bytes = prk_mul_size(elems, sizeof(double), "n");

    double *in = prk_alloc(bytes), *out = prk_alloc(bytes);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    double w[1001];
    stencil_weights(w, r);

#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            in[i * n + j] = (double)i + (double)j;
            out[i * n + j] = 0.0;
        }

#ifdef _OPENMP
    /* OpenMP work unit: blocks of at least 2r (and about 64) interior rows; the last takes the rest */
    const long block = 2L * r > 64 ? 2L * r : 64;
    const long nblocks = (n - 2 * r) / block > 0 ? (n - 2 * r) / block : 1;
#endif
    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
#ifdef _OPENMP
#pragma omp parallel
        {
            /* blocks of interior rows handed out dynamically; a block increments the rows of `in`
             * that only it reads, the 2r rows around each block boundary follow the barrier */
#pragma omp for schedule(dynamic, 1)
            for (long k = 0; k < nblocks; k++) {
                const long a0 = r + k * block, b0 = k == nblocks - 1 ? n - r : a0 + block;
                const long lo = k == 0 ? 0 : a0 + r, hi = k == nblocks - 1 ? n : b0 - r;
                stencil_sweep_fused(out, in, n, a0, b0, r, n - r, w, r, lo, hi, 0, n);
            }
#pragma omp for schedule(static)
            for (long k = 1; k < nblocks; k++)
                for (long x = (r + k * block - r) * n; x < (r + k * block + r) * n; x++) in[x] += 1.0;
        }
#else
        stencil_sweep_fused(out, in, n, r, n - r, r, n - r, w, r, 0, n, 0, n);
#endif
        times[iter] = prk_now() - t0;
    }

    const double active = (double)(n - 2 * r) * (double)(n - 2 * r);
    if (prk_perturb()) out[(size_t)r * n + r] += active;

    double norm = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : norm)
#endif
    for (long i = r; i < n - r; i++)
        for (long j = r; j < n - r; j++) norm += fabs(out[i * n + j]);
    norm /= active;
    const double reference = (double)(iterations + 1) * 2.0;

    prk_report_t rep;
    prk_report_init(&rep, "stencil", iterations, n);
    prk_json_int(&rep.parameters, "n", n);
    prk_json_int(&rep.parameters, "radius", r);
    prk_json_str(&rep.parameters, "stencil", "star");
    prk_json_num(&rep.parameters, "prk_work_per_iteration", (2.0 * (4 * r + 1) + 1.0) * active);
    rep.threads = prk_thread_count();
    /* in read + written (in += 1), out read + written on the interior */
    rep.bytes = sizeof(double) * (2.0 * (double)elems + 2.0 * active);
    /* 4r multiply-adds per interior point, one add per grid point */
    rep.flops = 8.0 * r * active + (double)elems;
    rep.rate_in_bytes = 0;
    rep.error = fabs(norm - reference);
    rep.valid = rep.error <= rep.tolerance;
    prk_json_num(&rep.details, "l1_norm", norm);
    prk_json_num(&rep.details, "reference_l1_norm", reference);
    prk_json_str(&rep.details, "error_kind", "absolute");
    prk_finish(&rep, times);
    return 0;
}
