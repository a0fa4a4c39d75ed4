/*
 * PRK stencil (MPI): star stencil of radius r on an n x n grid, 2-D block decomposition.
 *
 * The R ranks form a pr x pc grid (pc the largest divisor of R not above sqrt(R), so rows are
 * split first and the halos of a 1-D split are contiguous rows). Blocks may be uneven; every
 * block must be at least r wide so halos come from direct neighbours only. Each iteration:
 * exchange r-wide halos with the four neighbours (non-blocking, packed buffers; a star stencil
 * needs no corners), apply the stencil on the owned part of the interior, then in += 1 on the
 * owned block.
 *
 * Validation (PRK): global L1 norm of out over the interior / interior points
 * = (iterations+1)*(cx+cy), absolute error below epsilon.
 * Usage: stencil-mpi <iterations> <n> [radius]
 */
#include "prk_common.h"
#include "stencil_core.h"

static long max_l(long a, long b) { return a > b ? a : b; }
static long min_l(long a, long b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int ranks = prk_rank_count(), me = prk_rank_id();
    prk_check_argc(argc, 2, 3, "stencil <iterations> <n> [radius]");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long n = prk_arg_long(argv[2], "n", 1, 1L << 30);
    const int r = argc > 3 ? (int)prk_arg_long(argv[3], "radius", 1, 1000) : 2;
    if (2L * r + 1 > n) prk_bad_args("stencil diameter 2*%d+1 exceeds grid size %ld", r, n);

    int pc = 1;
    for (int d = 1; (long)d * d <= ranks; d++)
        if (ranks % d == 0) pc = d;
    const int pr = ranks / pc;
    if (n / pr < r || n / pc < r)
        prk_bad_args("grid size %ld on a %dx%d rank grid leaves blocks narrower than radius %d", n, pr, pc, r);
    const int my_r = me / pc, my_c = me % pc;
    long si, ni, sj, nj;
    prk_block(n, pr, my_r, &si, &ni);
    prk_block(n, pc, my_c, &sj, &nj);
    const int up = my_r > 0 ? me - pc : MPI_PROC_NULL, down = my_r < pr - 1 ? me + pc : MPI_PROC_NULL;
    const int left = my_c > 0 ? me - 1 : MPI_PROC_NULL, right = my_c < pc - 1 ? me + 1 : MPI_PROC_NULL;

    /* local arrays with an r-wide halo on every side; (r, r) is the first owned point */
    const long ld = nj + 2L * r, rows = ni + 2L * r;
    const size_t bytes = prk_mul_size(prk_mul_size((size_t)ld, (size_t)rows, "n"), sizeof(double), "n");
    double *in = prk_alloc(bytes), *out = prk_alloc(bytes);
    const long rowhalo = (long)r * nj, colhalo = (long)r * ni;
    double *sbuf[4], *rbuf[4];
    for (int d = 0; d < 4; d++) {
        long len = d < 2 ? rowhalo : colhalo;
        sbuf[d] = prk_alloc(sizeof(double) * (size_t)len);
        rbuf[d] = prk_alloc(sizeof(double) * (size_t)len);
    }
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    double w[1001];
    stencil_weights(w, r);

    memset(in, 0, bytes);
    memset(out, 0, bytes);
    for (long i = 0; i < ni; i++)
        for (long j = 0; j < nj; j++) in[(i + r) * ld + j + r] = (double)(si + i) + (double)(sj + j);

    /* owned part of the global interior [r, n-r), in local coordinates */
    const long gi0 = max_l(si, r), gi1 = min_l(si + ni, n - r);
    const long gj0 = max_l(sj, r), gj1 = min_l(sj + nj, n - r);
    const long li0 = gi0 - si + r, li1 = gi1 - si + r, lj0 = gj0 - sj + r, lj1 = gj1 - sj + r;

    for (int iter = 0; iter <= iterations; iter++) {
        prk_iteration_barrier();
        double t0 = prk_now();
        MPI_Request req[8];
        /* 0: to/from up, 1: to/from down, 2: left, 3: right */
        MPI_Irecv(rbuf[0], (int)rowhalo, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(rbuf[1], (int)rowhalo, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Irecv(rbuf[2], (int)colhalo, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req[2]);
        MPI_Irecv(rbuf[3], (int)colhalo, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[3]);
        for (int k = 0; k < r; k++) {
            memcpy(sbuf[0] + k * nj, in + (r + k) * ld + r, sizeof(double) * (size_t)nj);
            memcpy(sbuf[1] + k * nj, in + (ni + k) * ld + r, sizeof(double) * (size_t)nj);
        }
        for (long i = 0; i < ni; i++)
            for (int k = 0; k < r; k++) {
                sbuf[2][i * r + k] = in[(i + r) * ld + r + k];
                sbuf[3][i * r + k] = in[(i + r) * ld + nj + k];
            }
        MPI_Isend(sbuf[0], (int)rowhalo, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[4]);
        MPI_Isend(sbuf[1], (int)rowhalo, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[5]);
        MPI_Isend(sbuf[2], (int)colhalo, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[6]);
        MPI_Isend(sbuf[3], (int)colhalo, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &req[7]);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
        if (up != MPI_PROC_NULL)
            for (int k = 0; k < r; k++) memcpy(in + k * ld + r, rbuf[0] + k * nj, sizeof(double) * (size_t)nj);
        if (down != MPI_PROC_NULL)
            for (int k = 0; k < r; k++)
                memcpy(in + (ni + r + k) * ld + r, rbuf[1] + k * nj, sizeof(double) * (size_t)nj);
        if (left != MPI_PROC_NULL)
            for (long i = 0; i < ni; i++)
                for (int k = 0; k < r; k++) in[(i + r) * ld + k] = rbuf[2][i * r + k];
        if (right != MPI_PROC_NULL)
            for (long i = 0; i < ni; i++)
                for (int k = 0; k < r; k++) in[(i + r) * ld + nj + r + k] = rbuf[3][i * r + k];

        /* stencil on the owned interior, in += 1 on the owned block (halos are refreshed next time) */
        if (lj1 > lj0)
            stencil_sweep_fused(out, in, ld, li0, li1, lj0, lj1, w, r, r, ni + r, r, nj + r);
        else
            stencil_sweep_fused(out, in, ld, 0, 0, 0, 0, w, r, r, ni + r, r, nj + r);
        times[iter] = prk_now() - t0;
    }

    const double active = (double)(n - 2 * r) * (double)(n - 2 * r);
    if (prk_perturb()) {
        /* the lowest rank that owns interior points spoils one of them */
        int candidate = (li1 > li0 && lj1 > lj0) ? me : INT_MAX, first = 0;
        MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (first == me) out[li0 * ld + lj0] += active;
    }

    double local = 0.0, norm = 0.0;
    for (long i = li0; i < li1; i++)
        for (long j = lj0; j < lj1; j++) local += fabs(out[i * ld + j]);
    MPI_Reduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    norm /= active;
    const double reference = (double)(iterations + 1) * 2.0;

    const double elems = (double)n * (double)n;
    prk_report_t rep;
    prk_report_init(&rep, "stencil", iterations, n);
    prk_json_int(&rep.parameters, "n", n);
    prk_json_int(&rep.parameters, "radius", r);
    prk_json_str(&rep.parameters, "stencil", "star");
    prk_json_num(&rep.parameters, "prk_work_per_iteration", (2.0 * (4 * r + 1) + 1.0) * active);
    rep.bytes = sizeof(double) * (2.0 * elems + 2.0 * active);
    rep.flops = 8.0 * r * active + elems;
    rep.rate_in_bytes = 0;
    rep.error = fabs(norm - reference);
    rep.valid = prk_share_flag(me == 0 ? rep.error <= rep.tolerance : 0);
    prk_json_num(&rep.details, "l1_norm", norm);
    prk_json_num(&rep.details, "reference_l1_norm", reference);
    prk_json_str(&rep.details, "error_kind", "absolute");
    {
        char grid[64];
        snprintf(grid, sizeof(grid), "%dx%d", pr, pc);
        prk_json_str(&rep.details, "rank_grid", grid);
    }
    prk_finish(&rep, times);
    return 0;
}
