/*
 * PRK transpose (MPI): B += A^T, A += 1, with A[i][j] = i*order + j and B = 0 (row-major).
 *
 * Decomposition: rank p owns a block of whole rows of A and of B (uneven blocks allowed).
 * Rank p needs, for its B rows, the columns of every other rank's A rows that fall into its own
 * row range. Pairwise-exchange schedule (PRK): in phase k = 1..R-1, rank p sends to
 * (p-k) mod R and receives from (p+k) mod R. The block is transposed while it is packed
 * (tiled through a small L1 buffer, the A += 1 update fused into the same pass), so the
 * receiver only adds contiguous rows. Phase 0 is the local block, transposed straight into B.
 *
 * Validation (PRK): B[j][i] = (i*order + j)*(iterations+1) + iterations*(iterations+1)/2,
 * summed absolute difference over all ranks below epsilon.
 * Usage: transpose-mpi <iterations> <order> [tile]
 */
#include "prk_common.h"

/* dst[ii][jj] (=, or += when add) src[jj][ii] for ii < rows, jj < cols; src[jj][ii] += 1. */
static void transpose_block(double *restrict dst, long ld_dst, double *restrict src, long ld_src,
                            long rows, long cols, double *restrict buf, long tile, int add)
{
    for (long ib = 0; ib < rows; ib += tile) {
        const long ie = ib + tile < rows ? ib + tile : rows, w = ie - ib;
        for (long jb = 0; jb < cols; jb += tile) {
            const long je = jb + tile < cols ? jb + tile : cols, h = je - jb;
            for (long j = 0; j < h; j++) {
                double *restrict s = src + (jb + j) * ld_src + ib;
                double *restrict t = buf + j * w;
                for (long i = 0; i < w; i++) {
                    t[i] = s[i];
                    s[i] += 1.0;
                }
            }
            for (long i = 0; i < w; i++) {
                double *restrict d = dst + (ib + i) * ld_dst + jb;
                const double *restrict col = buf + i;
                if (add)
                    for (long j = 0; j < h; j++) d[j] += col[j * w];
                else
                    for (long j = 0; j < h; j++) d[j] = col[j * w];
            }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int ranks = prk_rank_count(), me = prk_rank_id();
    prk_check_argc(argc, 2, 3, "transpose <iterations> <order> [tile]");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long order = prk_arg_long(argv[2], "order", 1, 1L << 30);
    long tile = argc > 3 ? prk_arg_long(argv[3], "tile", 1, 1L << 30) : 32;
    if (tile > order) tile = order;
    if (order < ranks) prk_bad_args("order %ld is smaller than the number of ranks %d", order, ranks);

    long s_me, n_me, maxblock = (order + ranks - 1) / ranks;
    prk_block(order, ranks, me, &s_me, &n_me);
    if ((double)maxblock * (double)maxblock > (double)INT_MAX)
        prk_bad_args("order %ld gives blocks too large for one MPI message on %d ranks", order, ranks);
    const size_t local = prk_mul_size(prk_mul_size((size_t)n_me, (size_t)order, "order"), sizeof(double), "order");
    const size_t blockbytes = prk_mul_size((size_t)(maxblock * maxblock), sizeof(double), "order");
    double *a = prk_alloc(local), *b = prk_alloc(local);
    double *sendbuf = prk_alloc(blockbytes), *recvbuf = prk_alloc(blockbytes);
    double *buf = prk_alloc(sizeof(double) * (size_t)(tile * tile));
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));

    for (long i = 0; i < n_me; i++)
        for (long j = 0; j < order; j++) {
            a[i * order + j] = (double)((s_me + i) * order + j);
            b[i * order + j] = 0.0;
        }

    for (int iter = 0; iter <= iterations; iter++) {
        prk_iteration_barrier();
        double t0 = prk_now();
        /* phase 0: my rows of B, my columns: B[i][s_me + j] += A[j][s_me + i] */
        transpose_block(b + s_me, order, a + s_me, order, n_me, n_me, buf, tile, 1);
        for (int phase = 1; phase < ranks; phase++) {
            const int to = (me - phase + ranks) % ranks, from = (me + phase) % ranks;
            long s_to, n_to, s_from, n_from;
            prk_block(order, ranks, to, &s_to, &n_to);
            prk_block(order, ranks, from, &s_from, &n_from);
            /* pack: sendbuf[ii][jj] = A[jj][s_to + ii], an n_to x n_me block */
            transpose_block(sendbuf, n_me, a + s_to, order, n_to, n_me, buf, tile, 0);
            MPI_Sendrecv(sendbuf, (int)(n_to * n_me), MPI_DOUBLE, to, phase, recvbuf,
                         (int)(n_me * n_from), MPI_DOUBLE, from, phase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            /* unpack: B[i][s_from + jj] += recvbuf[i][jj] */
            for (long i = 0; i < n_me; i++) {
                double *restrict d = b + i * order + s_from;
                const double *restrict s = recvbuf + i * n_from;
                for (long j = 0; j < n_from; j++) d[j] += s[j];
            }
        }
        times[iter] = prk_now() - t0;
    }

    if (prk_perturb() && me == 0) b[0] += 1.0;

    const double addit = ((double)iterations + 1.0) * (double)iterations / 2.0;
    double local_err = 0.0, abserr = 0.0;
    for (long i = 0; i < n_me; i++)
        for (long j = 0; j < order; j++) {
            const double ref = (double)(j * order + s_me + i) * ((double)iterations + 1.0) + addit;
            local_err += fabs(b[i * order + j] - ref);
        }
    MPI_Reduce(&local_err, &abserr, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    const double elems = (double)order * (double)order;
    prk_report_t r;
    prk_report_init(&r, "transpose", iterations, order);
    prk_json_int(&r.parameters, "order", order);
    prk_json_int(&r.parameters, "tile", tile);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * sizeof(double) * elems);
    r.bytes = 4.0 * sizeof(double) * elems;
    r.flops = 2.0 * elems;
    r.rate_in_bytes = 1;
    r.error = abserr;
    r.valid = prk_share_flag(me == 0 ? abserr < r.tolerance : 0);
    prk_json_num(&r.details, "abs_error_sum", abserr);
    prk_json_str(&r.details, "error_kind", "sum of absolute differences");
    prk_json_str(&r.details, "schedule", "pairwise exchange, row blocks");
    prk_finish(&r, times);
    return 0;
}
