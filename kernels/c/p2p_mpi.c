/*
 * PRK synch_p2p (MPI): m x n grid, 1-D decomposition into vertical strips of columns (uneven
 * widths allowed), pipelined with two-sided messages.
 *
 * Each rank stores its columns plus one ghost column on the left (its left neighbour's last
 * column). Rows are processed in chunks: a rank receives the ghost values of a chunk from its
 * left neighbour, sweeps the chunk, and sends its last column of the chunk to the right.
 * The first chunk also carries row 0, so a left neighbour whose last column is column 0 passes
 * on the A[0][0] it set at the end of the previous iteration. After the sweep the last rank
 * sends A[m-1][n-1] to rank 0, which sets A[0][0] = -A[m-1][n-1].
 *
 * Validation (PRK): A[m-1][n-1] = (iterations+1)*(m+n-2), relative error below epsilon.
 * Usage: p2p-mpi <iterations> <m> <n>
 */
#include "prk_common.h"
#include "p2p_core.h"

#define P2P_CHUNK 32

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int ranks = prk_rank_count(), me = prk_rank_id();
    prk_check_argc(argc, 3, 3, "p2p <iterations> <m> <n>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long m = prk_arg_long(argv[2], "m", 2, 1L << 30);
    const long n = prk_arg_long(argv[3], "n", 2, 1L << 30);
    if (n < ranks) prk_bad_args("n %ld is smaller than the number of ranks %d", n, ranks);

    long s, w;
    prk_block(n, ranks, me, &s, &w);
    /* local column 0 is the ghost (global s-1); local column k is global s-1+k */
    const long ld = w + 1;
    double *a = prk_alloc(prk_mul_size(prk_mul_size((size_t)m, (size_t)ld, "m*n"), sizeof(double), "m*n"));
    double *buf = prk_alloc(sizeof(double) * P2P_CHUNK);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    memset(a, 0, sizeof(double) * (size_t)m * (size_t)ld);
    for (long k = 0; k < ld; k++) a[k] = (double)(s - 1 + k); /* row 0: A[0][j] = j */
    if (me == 0)
        for (long i = 0; i < m; i++) a[i * ld + 1] = (double)i; /* column 0: A[i][0] = i */
    const long jfirst = me == 0 ? 2 : 1; /* first local column to compute (global j >= 1) */
    const long chunks = (m + P2P_CHUNK - 1) / P2P_CHUNK;

    for (int iter = 0; iter <= iterations; iter++) {
        prk_iteration_barrier();
        double t0 = prk_now();
        for (long c = 0; c < chunks; c++) {
            const long i0 = c * P2P_CHUNK, i1 = i0 + P2P_CHUNK < m ? i0 + P2P_CHUNK : m;
            if (me > 0) {
                MPI_Recv(buf, (int)(i1 - i0), MPI_DOUBLE, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (long i = i0; i < i1; i++) a[i * ld] = buf[i - i0];
            }
            p2p_block(a, ld, i0 > 1 ? i0 : 1, i1, jfirst, ld);
            if (me < ranks - 1) {
                for (long i = i0; i < i1; i++) buf[i - i0] = a[i * ld + w];
                MPI_Send(buf, (int)(i1 - i0), MPI_DOUBLE, me + 1, 0, MPI_COMM_WORLD);
            }
        }
        if (ranks == 1)
            a[1] = -a[(m - 1) * ld + w];
        else if (me == ranks - 1) {
            double corner = a[(m - 1) * ld + w];
            MPI_Send(&corner, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        } else if (me == 0) {
            double corner;
            MPI_Recv(&corner, 1, MPI_DOUBLE, ranks - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            a[1] = -corner;
        }
        times[iter] = prk_now() - t0;
    }

    const double reference = (double)(iterations + 1) * (double)(m + n - 2);
    if (prk_perturb() && me == ranks - 1) a[(m - 1) * ld + w] += reference;
    double corner = me == ranks - 1 ? a[(m - 1) * ld + w] : 0.0;
    MPI_Bcast(&corner, 1, MPI_DOUBLE, ranks - 1, MPI_COMM_WORLD);

    prk_report_t r;
    prk_report_init(&r, "p2p", iterations, m);
    prk_json_int(&r.parameters, "m", m);
    prk_json_int(&r.parameters, "n", n);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * (double)(m - 1) * (double)(n - 1));
    r.bytes = 2.0 * sizeof(double) * (double)m * (double)n;
    r.flops = 2.0 * (double)(m - 1) * (double)(n - 1);
    r.rate_in_bytes = 0;
    r.error = fabs(corner - reference) / reference;
    r.valid = prk_share_flag(me == 0 ? r.error <= r.tolerance : 0);
    prk_json_num(&r.details, "corner", corner);
    prk_json_num(&r.details, "reference_corner", reference);
    prk_json_str(&r.details, "error_kind", "relative");
    prk_json_int(&r.details, "rows_per_message", P2P_CHUNK);
    prk_finish(&r, times);
    return 0;
}
