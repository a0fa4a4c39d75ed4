/*
 * PRK transpose (serial and OpenMP): B += A^T, then A += 1, on order x order row-major matrices
 * with A[i][j] = i*order + j and B = 0.
 *
 * Validation (PRK): after iterations+1 sweeps
 *   B[j][i] = (i*order + j)*(iterations+1) + iterations*(iterations+1)/2,
 * the summed absolute difference must stay below epsilon.
 *
 * Tiling: each tile x tile block of A is copied row by row into a small buffer (contiguous
 * reads and the A += 1 update in the same pass), then added transposed into B row by row, so
 * main memory is only touched in contiguous row segments; the strided (transposing) reads hit
 * the buffer in L1. This avoids the cache-set conflicts of power-of-two column strides.
 * Usage: transpose <iterations> <order> [tile]   (tile defaults to 32)
 */
#include "prk_common.h"

static void tile_transpose(double *restrict b, double *restrict a, double *restrict buf, long order,
                           long ib, long ie, long jb, long je)
{
    const long w = ie - ib; /* columns of A in this tile = rows of B */
    for (long j = jb; j < je; j++) {
        double *restrict arow = a + j * order + ib;
        double *restrict brow = buf + (j - jb) * w;
        for (long i = 0; i < w; i++) {
            brow[i] = arow[i];
            arow[i] += 1.0;
        }
    }
    const long h = je - jb;
    for (long i = ib; i < ie; i++) {
        double *restrict bdst = b + i * order + jb;
        const double *restrict col = buf + (i - ib);
        for (long j = 0; j < h; j++) bdst[j] += col[j * w];
    }
}

static void sweep(double *restrict b, double *restrict a, double **bufs, long order, long tile)
{
    const long nt = (order + tile - 1) / tile;
#ifdef _OPENMP
#pragma omp parallel
    {
        double *buf = bufs[omp_get_thread_num()];
#pragma omp for collapse(2) schedule(static)
#else
    {
        double *buf = bufs[0];
#endif
        for (long ti = 0; ti < nt; ti++)
            for (long tj = 0; tj < nt; tj++) {
                long ib = ti * tile, jb = tj * tile;
                long ie = ib + tile < order ? ib + tile : order;
                long je = jb + tile < order ? jb + tile : order;
                tile_transpose(b, a, buf, order, ib, ie, jb, je);
            }
    }
}

int main(int argc, char **argv)
{
    prk_check_argc(argc, 2, 3, "transpose <iterations> <order> [tile]");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long order = prk_arg_long(argv[2], "order", 1, 1L << 30);
    long tile = argc > 3 ? prk_arg_long(argv[3], "tile", 1, 1L << 30) : 32;
    if (tile > order) tile = order;
    const size_t elems = prk_mul_size((size_t)order, (size_t)order, "order");
    const size_t bytes = prk_mul_size(elems, sizeof(double), "order");

    double *a = prk_alloc(bytes), *b = prk_alloc(bytes);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    const int threads = prk_thread_count();
    double **bufs = prk_alloc(sizeof(double *) * (size_t)threads);
    for (int t = 0; t < threads; t++) bufs[t] = prk_alloc(sizeof(double) * (size_t)(tile * tile));

#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long i = 0; i < order; i++)
        for (long j = 0; j < order; j++) {
            a[i * order + j] = (double)(i * order + j);
            b[i * order + j] = 0.0;
        }

    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
        sweep(b, a, bufs, order, tile);
        times[iter] = prk_now() - t0;
    }

    if (prk_perturb()) b[order / 2] += 1.0;

    const double addit = ((double)iterations + 1.0) * (double)iterations / 2.0;
    double abserr = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : abserr)
#endif
    for (long j = 0; j < order; j++)
        for (long i = 0; i < order; i++) {
            const double ref = (double)(i * order + j) * ((double)iterations + 1.0) + addit;
            abserr += fabs(b[j * order + i] - ref);
        }

    prk_report_t r;
    prk_report_init(&r, "transpose", iterations, order);
    prk_json_int(&r.parameters, "order", order);
    prk_json_int(&r.parameters, "tile", tile);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * sizeof(double) * (double)elems);
    r.threads = threads;
    r.bytes = 4.0 * sizeof(double) * (double)elems; /* read+write A (A += 1), read+write B */
    r.flops = 2.0 * (double)elems;                  /* B += A^T and A += 1 */
    r.rate_in_bytes = 1;
    r.error = abserr;
    r.valid = abserr < r.tolerance;
    prk_json_num(&r.details, "abs_error_sum", abserr);
    prk_json_str(&r.details, "error_kind", "sum of absolute differences");
    prk_finish(&r, times);
    return 0;
}
