/*
 * PRK dgemm (serial and OpenMP): C += A*B on order x order row-major matrices, with
 * A[i][j] = B[i][j] = j (PRK's initialisation) and C = 0.
 *
 * Validation (PRK): sum(C) = (iterations+1) * order^3 * (order-1)^2 / 4, relative error.
 *
 * Implementation (cache-aware, in the style of BLIS/GotoBLAS; written for this project):
 *  - loop over k-panels of KC: pack KC x order of B into micro-panels of KC x NR (k-major);
 *  - loop over row blocks of MC: pack MC x KC of A into micro-panels of MR x KC (k-major);
 *  - micro-kernel: an MR x NR tile of C held in vector registers, updated with one broadcast of
 *    A and NR/VL vector loads of B per k (GCC vector extensions, so the compiler picks
 *    AVX-512, AVX2 or SSE from -march). Edges are zero-padded in the packed buffers and the
 *    tile is added back only where it lies inside C.
 * OpenMP: each thread owns a contiguous range of row blocks and packs its own B panels (no
 * barrier inside an iteration).
 * Usage: dgemm <iterations> <order>
 */
#include "prk_common.h"

#if defined(__AVX512F__)
#define VL 8
#define MR 8
#elif defined(__AVX__)
#define VL 4
#define MR 4
#else
#define VL 2
#define MR 4
#endif
#define NV 3
#define NR (NV * VL)
#ifndef KC
#define KC 256
#endif
#ifndef MC_MAX
#define MC_MAX 64
#endif

typedef double vd __attribute__((vector_size(VL * sizeof(double))));
typedef double vdu __attribute__((vector_size(VL * sizeof(double)), aligned(sizeof(double))));

/* C[0..mr)[0..nr) += Ap (kc x MR) * Bp (kc x NR); ldc is C's row stride. */
static void micro_kernel(long kc, const double *restrict ap, const double *restrict bp, double *restrict c,
                         long ldc, long mr, long nr)
{
    vd acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++) acc[r][v] = (vd){0};
    for (long k = 0; k < kc; k++) {
        const vd *b = (const vd *)(bp + k * NR);
        vd b0 = b[0], b1 = b[1], b2 = b[2];
        const double *a = ap + k * MR;
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            const double ar = a[r];
            acc[r][0] += ar * b0;
            acc[r][1] += ar * b1;
            acc[r][2] += ar * b2;
        }
    }
    if (mr == MR && nr == NR) {
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            vdu *crow = (vdu *)(c + r * ldc);
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++) crow[v] += acc[r][v];
        }
    } else {
        double tile[MR][NR] __attribute__((aligned(64)));
        for (int r = 0; r < MR; r++)
            for (int v = 0; v < NV; v++) *(vd *)&tile[r][v * VL] = acc[r][v];
        for (long r = 0; r < mr; r++)
            for (long j = 0; j < nr; j++) c[r * ldc + j] += tile[r][j];
    }
}

/* Bp: for each NR-wide column block, kc rows of NR values (zero beyond the matrix). */
static void pack_b(double *restrict bp, const double *restrict b, long n, long pc, long kc, long jb0, long jb1)
{
    for (long jb = jb0; jb < jb1; jb++) {
        const long j0 = jb * NR, w = n - j0 < NR ? n - j0 : NR;
        double *dst = bp + jb * kc * NR;
        for (long k = 0; k < kc; k++) {
            const double *src = b + (pc + k) * n + j0;
            long j = 0;
            for (; j < w; j++) dst[k * NR + j] = src[j];
            for (; j < NR; j++) dst[k * NR + j] = 0.0;
        }
    }
}

/* Ap: for each MR-high row block, kc columns of MR values (zero beyond the matrix). */
static void pack_a(double *restrict ap, const double *restrict a, long n, long ic, long mc, long pc, long kc)
{
    for (long ir = 0; ir < mc; ir += MR) {
        const long h = mc - ir < MR ? mc - ir : MR;
        double *dst = ap + ir * kc;
        for (long r = 0; r < h; r++) {
            const double *src = a + (ic + ir + r) * n + pc;
            for (long k = 0; k < kc; k++) dst[k * MR + r] = src[k];
        }
        for (long r = h; r < MR; r++)
            for (long k = 0; k < kc; k++) dst[k * MR + r] = 0.0;
    }
}

static void block_multiply(double *restrict c, const double *restrict ap, const double *restrict bp, long n,
                           long ic, long mc, long kc)
{
    const long nb = (n + NR - 1) / NR;
    for (long jb = 0; jb < nb; jb++) {
        const long j0 = jb * NR, nr = n - j0 < NR ? n - j0 : NR;
        const double *bpan = bp + jb * kc * NR;
        for (long ir = 0; ir < mc; ir += MR) {
            const long mr = mc - ir < MR ? mc - ir : MR;
            micro_kernel(kc, ap + ir * kc, bpan, c + (ic + ir) * n + j0, n, mr, nr);
        }
    }
}

/* Row-block height: a multiple of MR, at most MC_MAX, giving every thread a fair share. */
static long choose_mc(long n, int threads)
{
    long blocks = (n + MC_MAX - 1) / MC_MAX;
    blocks = (blocks + threads - 1) / threads * threads;
    long mc = (n + blocks - 1) / blocks;
    mc = (mc + MR - 1) / MR * MR;
    return mc < MR ? MR : mc;
}

/* Each thread owns a contiguous range of row blocks and packs its own copy of each B panel, so
 * an iteration needs no barrier (a thread descheduled on a busy machine delays only itself). */
static void dgemm(double *restrict c, const double *restrict a, const double *restrict b, long n, double **bps,
                  double **aps, long mc)
{
    const long nb = (n + NR - 1) / NR, nblocks = (n + mc - 1) / mc;
#ifdef _OPENMP
#pragma omp parallel
#endif
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        double *ap = aps[t], *bp = bps[t];
        long first, count;
        prk_block(nblocks, nt, t, &first, &count);
        for (long pc = 0; pc < n && count > 0; pc += KC) {
            const long kc = n - pc < KC ? n - pc : KC;
            pack_b(bp, b, n, pc, kc, 0, nb);
            for (long blk = first; blk < first + count; blk++) {
                const long ic = blk * mc, m = n - ic < mc ? n - ic : mc;
                pack_a(ap, a, n, ic, m, pc, kc);
                block_multiply(c, ap, bp, n, ic, m, kc);
            }
        }
    }
}

int main(int argc, char **argv)
{
    prk_check_argc(argc, 2, 2, "dgemm <iterations> <order>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long n = prk_arg_long(argv[2], "order", 1, 1L << 20);
    const size_t bytes = prk_mul_size(prk_mul_size((size_t)n, (size_t)n, "order"), sizeof(double), "order");
    double *a = prk_alloc(bytes), *b = prk_alloc(bytes), *c = prk_alloc(bytes);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    const int threads = prk_thread_count();
    const long mc = choose_mc(n, threads);
    const long nb = (n + NR - 1) / NR;
    double **aps = prk_alloc(sizeof(double *) * (size_t)threads);
    double **bps = prk_alloc(sizeof(double *) * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        aps[t] = prk_alloc(sizeof(double) * (size_t)((mc + MR) * KC));
        bps[t] = prk_alloc(sizeof(double) * (size_t)(nb * NR) * KC);
    }

#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (double)j;
            b[i * n + j] = (double)j;
            c[i * n + j] = 0.0;
        }

    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
        dgemm(c, a, b, n, bps, aps, mc);
        times[iter] = prk_now() - t0;
    }

    const double fn = (double)n;
    const double reference = 0.25 * fn * fn * fn * (fn - 1.0) * (fn - 1.0) * (double)(iterations + 1);
    if (prk_perturb()) c[n / 2] += reference;
    double checksum = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : checksum)
#endif
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) checksum += c[i * n + j];

    prk_report_t r;
    prk_report_init(&r, "dgemm", iterations, n);
    prk_json_int(&r.parameters, "order", n);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * fn * fn * fn);
    r.threads = threads;
    r.bytes = 4.0 * sizeof(double) * fn * fn; /* read A, B; read and write C */
    r.flops = 2.0 * fn * fn * fn;             /* useful flops; zero padding at the edges not counted */
    r.rate_in_bytes = 0;
    /* order 1 gives a zero reference: then the checksum itself is the error */
    r.error = reference != 0.0 ? fabs(checksum - reference) / reference : fabs(checksum);
    r.valid = r.error <= r.tolerance;
    prk_json_num(&r.details, "checksum", checksum);
    prk_json_num(&r.details, "reference_checksum", reference);
    prk_json_str(&r.details, "error_kind", "relative");
    {
        char blocking[96];
        snprintf(blocking, sizeof(blocking), "MRxNR %dx%d, KC %d, MC %ld", MR, NR, KC, mc);
        prk_json_str(&r.details, "blocking", blocking);
    }
    prk_finish(&r, times);
    return 0;
}
