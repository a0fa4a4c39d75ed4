/*
 * PRK dgemm (serial and OpenMP): C += A*B on order x order row-major matrices, with
 * A[i][j] = B[i][j] = j (PRK's initialisation) and C = 0.
 *
 * Validation (PRK): sum(C) = (iterations+1) * order^3 * (order-1)^2 / 4, relative error.
 *
 * Implementation (cache-aware, in the style of BLIS/GotoBLAS; written for this project):
 *  - NC loop: column panels of B (KC x NC packed, sized for a share of L3);
 *  - KC loop: pack KC x NC of B into micro-panels of KC x NR (k-major), KC chosen so that one
 *    micro-panel (KC * NR * 8 bytes) fills about half of L1;
 *  - MC loop: pack MC x KC of A into micro-panels of MR x KC (k-major), an MC x KC block sized
 *    for about a third of L2;
 *  - micro-kernel: an MR x NR tile of C in MR * NR/VL vector registers, per k NR/VL vector loads
 *    of B and MR broadcasts of A, so accumulators + B vectors + one broadcast fit the register
 *    file without spills (AVX2 6x8: 12 + 2 + 1 of 16 ymm; AVX-512 12x16: 24 + 2 + 1 of 32 zmm;
 *    SSE2 4x4: 8 + 2 + 1 of 16 xmm). GCC vector extensions; -march picks the instruction set.
 *    Edges are zero-padded in the packed buffers and the tile is added back only inside C.
 * OpenMP: each thread owns a contiguous range of row blocks and packs its own B panels (no
 * barrier inside an iteration: a thread descheduled on a busy machine delays only itself).
 * Usage: dgemm <iterations> <order>
 */
#include "prk_common.h"

/* Per instruction set: vector length VL (doubles), tile rows MR, and the cache blocking: a KC x NR
 * B micro-panel takes about half of a 32 KiB L1d, an MC x KC A block well under half of L2. */
#if defined(__AVX512F__)
#define VL 8
#define MR 12
#define KC_MAX 192    /* 24 KiB */
#define MC_DEFAULT 144 /* 216 KiB */
#elif defined(__AVX__)
#define VL 4
#define MR 6
#define KC_MAX 256    /* 16 KiB */
#define MC_DEFAULT 120 /* 240 KiB of a 512 KiB L2 */
#else
#define VL 2
#define MR 4
#define KC_MAX 256    /* 8 KiB */
#define MC_DEFAULT 128 /* 256 KiB */
#endif
#define NV 2
#define NR (NV * VL)
#ifndef KC /* -DKC=... and -DMC_MAX=... override, for tuning */
#define KC KC_MAX
#endif
#ifndef MC_MAX
#define MC_MAX MC_DEFAULT
#endif
#ifndef NC_MAX
#define NC_MAX 4096 /* B panel KC x NC: 8 MiB per thread in L3 */
#endif

typedef double vd __attribute__((vector_size(VL * sizeof(double))));
typedef double vdu __attribute__((vector_size(VL * sizeof(double)), aligned(sizeof(double))));

/* x in every lane (a vbroadcastsd; "(vd){0} + x" would keep an add, since 0 + -0 is +0). */
static inline vd splat(double x)
{
#if VL == 8
    return (vd){x, x, x, x, x, x, x, x};
#elif VL == 4
    return (vd){x, x, x, x};
#else
    return (vd){x, x};
#endif
}

/* acc += Ap (kc x MR) * Bp (kc x NR): the register-resident inner loop. */
static inline __attribute__((always_inline)) void micro_loop(vd acc[MR][NV], long kc, const double *restrict ap,
                                                              const double *restrict bp)
{
#pragma GCC unroll 4
    for (long k = 0; k < kc; k++) {
        const vd b0 = *(const vd *)(bp + k * NR), b1 = *(const vd *)(bp + k * NR + VL);
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) {
            const vd a = splat(ap[k * MR + r]);
            acc[r][0] += a * b0;
            acc[r][1] += a * b1;
        }
    }
}

/* C[0..mr)[0..nr) += Ap * Bp; ldc is C's row stride. */
static __attribute__((noinline)) void micro_kernel(long kc, const double *restrict ap, const double *restrict bp,
                                                   double *restrict c, long ldc, long mr, long nr)
{
    vd acc[MR][NV];
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) {
        __builtin_prefetch(c + r * ldc, 1);
        __builtin_prefetch(c + r * ldc + NR - 1, 1);
        acc[r][0] = acc[r][1] = (vd){0};
    }
    micro_loop(acc, kc, ap, bp);
    if (mr == MR && nr == NR) {
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) {
            vdu *crow = (vdu *)(c + r * ldc);
            crow[0] += acc[r][0];
            crow[1] += acc[r][1];
        }
    } else {
        double tile[MR][NR] __attribute__((aligned(64)));
        for (int r = 0; r < MR; r++)
            for (int v = 0; v < NV; v++) *(vd *)&tile[r][v * VL] = acc[r][v];
        for (long r = 0; r < mr; r++)
            for (long j = 0; j < nr; j++) c[r * ldc + j] += tile[r][j];
    }
}

/* Bp: for each NR-wide column block of columns [jc, jc+nc), kc rows of NR values (zero beyond C). */
static void pack_b(double *restrict bp, const double *restrict b, long n, long pc, long kc, long jc, long nc)
{
    for (long j0 = 0; j0 < nc; j0 += NR) {
        const long w = nc - j0 < NR ? nc - j0 : NR;
        double *dst = bp + j0 * kc;
        for (long k = 0; k < kc; k++) {
            const double *src = b + (pc + k) * n + jc + j0;
            long j = 0;
            if (w == NR)
                for (; j < NR; j++) dst[k * NR + j] = src[j];
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

/* C[ic.., jc..] += packed A block (mc x kc) * packed B panel (kc x nc): B micro-panel outer so it
 * stays in L1 while the A block streams from L2. */
static void macro_kernel(double *restrict c, const double *restrict ap, const double *restrict bp, long n,
                         long ic, long mc, long jc, long nc, long kc)
{
    for (long j0 = 0; j0 < nc; j0 += NR) {
        const long nr = nc - j0 < NR ? nc - j0 : NR;
        const double *bpan = bp + j0 * kc;
        for (long ir = 0; ir < mc; ir += MR) {
            const long mr = mc - ir < MR ? mc - ir : MR;
            micro_kernel(kc, ap + ir * kc, bpan, c + (ic + ir) * n + jc + j0, n, mr, nr);
        }
    }
}

/* A length split into equal parts of at most max, each a multiple of unit: fewer, even blocks
 * instead of full blocks and a thin remainder. */
static long even_block(long length, long max, long unit, long parts_multiple)
{
    long parts = (length + max - 1) / max;
    parts = (parts + parts_multiple - 1) / parts_multiple * parts_multiple;
    long size = (length + parts - 1) / parts;
    size = (size + unit - 1) / unit * unit;
    return size < unit ? unit : size;
}

typedef struct {
    long mc, kc, nc;
} blocking_t;

/* Each thread owns a contiguous range of row blocks and packs its own copy of each B panel. */
static void dgemm(double *restrict c, const double *restrict a, const double *restrict b, long n, double **bps,
                  double **aps, blocking_t blk)
{
    const long nblocks = (n + blk.mc - 1) / blk.mc;
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
        for (long jc = 0; jc < n && count > 0; jc += blk.nc) {
            const long nc = n - jc < blk.nc ? n - jc : blk.nc;
            for (long pc = 0; pc < n; pc += blk.kc) {
                const long kc = n - pc < blk.kc ? n - pc : blk.kc;
                pack_b(bp, b, n, pc, kc, jc, nc);
                for (long blkno = first; blkno < first + count; blkno++) {
                    const long ic = blkno * blk.mc, m = n - ic < blk.mc ? n - ic : blk.mc;
                    pack_a(ap, a, n, ic, m, pc, kc);
                    macro_kernel(c, ap, bp, n, ic, m, jc, nc, kc);
                }
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
    const blocking_t blk = {even_block(n, MC_MAX, MR, threads), even_block(n, KC, 1, 1), even_block(n, NC_MAX, NR, 1)};
    double **aps = prk_alloc(sizeof(double *) * (size_t)threads);
    double **bps = prk_alloc(sizeof(double *) * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        aps[t] = prk_alloc(sizeof(double) * (size_t)(blk.mc * blk.kc));
        bps[t] = prk_alloc(sizeof(double) * (size_t)(blk.nc * blk.kc));
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
        dgemm(c, a, b, n, bps, aps, blk);
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
        char blocking[128];
        snprintf(blocking, sizeof(blocking), "MRxNR %dx%d (%d-double vectors), KC %ld, MC %ld, NC %ld", MR, NR, VL,
                 blk.kc, blk.mc, blk.nc);
        prk_json_str(&r.details, "blocking", blocking);
    }
    prk_finish(&r, times);
    return 0;
}
