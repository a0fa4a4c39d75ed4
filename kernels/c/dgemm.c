/*
 * PRK dgemm (serial and OpenMP): C += A*B on order x order row-major matrices, with
 * A[i][j] = B[i][j] = j (PRK's initialisation) and C = 0.
 *
 * Validation (PRK): sum(C) = (iterations+1) * order^3 * (order-1)^2 / 4, relative error.
 *
 * Implementation (cache-aware, in the style of BLIS/GotoBLAS; written for this project):
 *  - NC loop: column panels of B (KC x NC packed, half of L3 shared among the threads);
 *  - KC loop: pack KC x NC of B into micro-panels of KC x NR (k-major), KC chosen so that one
 *    micro-panel (KC * NR * 8 bytes) fills (ways - 2) / ways of L1d (BLIS's analytical model:
 *    the other ways hold the streaming A micro-panel and the C tile);
 *  - MC loop: pack MC x KC of A into micro-panels of MR x KC (k-major), an MC x KC block sized
 *    for a quarter of L2;
 *  - cache sizes are the build machine's (-DPRK_L1D_BYTES ... from src/twelveways/prk/build.py,
 *    read from sysfs); SMT siblings that share a core's caches (PRK_CORE_CPUS) split them;
 *  - micro-kernel: an MR x NR tile of C in MR * NR/VL vector registers, per k NR/VL vector loads
 *    of B and MR broadcasts of A, so accumulators + B vectors + one broadcast fit the register
 *    file without spills (AVX2 6x8: 12 + 2 + 1 of 16 ymm; AVX-512 12x16: 24 + 2 + 1 of 32 zmm;
 *    SSE2 4x4: 8 + 2 + 1 of 16 xmm). GCC vector extensions; -march picks the instruction set.
 *    Edges are zero-padded in the packed buffers and the tile is added back only inside C.
 * A is packed column by column (MR read streams, one sequential write stream).
 * OpenMP: each thread owns a contiguous, balanced range of MR-row tiles (thread shares differ by
 * at most one tile, the ragged last tile counted as a whole one), cut into equal row blocks, and
 * packs its own B panels (no barrier inside an iteration: a thread descheduled on a busy machine
 * delays only itself).  A last column panel at most VL wide runs a one-vector-wide micro-kernel.
 * Usage: dgemm <iterations> <order>
 */
#include "prk_common.h"
#if defined(__linux__) && defined(_OPENMP)
#include <sched.h>
#define CURRENT_CPU() sched_getcpu()
#else
#define CURRENT_CPU() (-1)
#endif

/* Per instruction set: vector length VL (doubles) and tile rows MR. */
#if defined(__AVX512F__)
#define VL 8
#define MR 12
#elif defined(__AVX__)
#define VL 4
#define MR 6
#else
#define VL 2
#define MR 4
#endif
#define NV 2
#define NR (NV * VL)

/* The build machine's caches (build.py passes them from sysfs); these defaults describe a common
 * x86 core when the build could not read them.  -DKC=, -DMC_MAX=, -DNC_MAX= override, for tuning. */
#ifndef PRK_L1D_BYTES
#define PRK_L1D_BYTES 32768
#endif
#ifndef PRK_L1D_WAYS
#define PRK_L1D_WAYS 8
#endif
#ifndef PRK_L2_BYTES
#define PRK_L2_BYTES 524288
#endif
#ifndef PRK_L3_BYTES
#define PRK_L3_BYTES 8388608
#endif
#ifndef PRK_CORE_CPUS /* logical CPUs sharing one core's L1d and L2 (SMT siblings) */
#define PRK_CORE_CPUS 1
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

/* C[0..mr)[0..nr) += Ap * Bp for a last column panel at most VL wide: one vector per row, so the
 * zero padding of the packed panel costs no FMAs. */
static __attribute__((noinline)) void micro_kernel_narrow(long kc, const double *restrict ap,
                                                          const double *restrict bp, double *restrict c, long ldc,
                                                          long mr, long nr)
{
    vd acc[MR];
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) acc[r] = (vd){0};
#pragma GCC unroll 4
    for (long k = 0; k < kc; k++) {
        const vd b0 = *(const vd *)(bp + k * NR);
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) acc[r] += splat(ap[k * MR + r]) * b0;
    }
    double tile[MR][VL] __attribute__((aligned(64)));
    for (int r = 0; r < MR; r++) *(vd *)&tile[r][0] = acc[r];
    for (long r = 0; r < mr; r++)
        for (long j = 0; j < nr; j++) c[r * ldc + j] += tile[r][j];
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

/* Ap: for each MR-high row block, kc columns of MR values (zero beyond the matrix).  Columns outer,
 * rows inner: MR sequential read streams and one sequential write stream (rows outer stores with
 * an MR-double stride, a new cache line per store; a profile showed that pass at 5 % of the run
 * at order 1000, 1-2 % now). */
static void pack_a(double *restrict ap, const double *restrict a, long n, long ic, long mc, long pc, long kc)
{
    for (long ir = 0; ir < mc; ir += MR) {
        const long h = mc - ir < MR ? mc - ir : MR;
        const double *src = a + (ic + ir) * n + pc;
        double *dst = ap + ir * kc;
        if (h == MR) {
            for (long k = 0; k < kc; k++)
#pragma GCC unroll 12
                for (int r = 0; r < MR; r++) dst[k * MR + r] = src[r * n + k];
        } else {
            for (long k = 0; k < kc; k++)
                for (long r = 0; r < MR; r++) dst[k * MR + r] = r < h ? src[r * n + k] : 0.0;
        }
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
            if (nr <= VL)
                micro_kernel_narrow(kc, ap + ir * kc, bpan, c + (ic + ir) * n + jc + j0, n, mr, nr);
            else
                micro_kernel(kc, ap + ir * kc, bpan, c + (ic + ir) * n + jc + j0, n, mr, nr);
        }
    }
}

/* A length split into equal parts of at most max, each a multiple of unit: fewer, even blocks
 * instead of full blocks and a thin remainder. */
static long even_block(long length, long max, long unit)
{
    if (length <= 0) return unit;
    const long parts = (length + max - 1) / max;
    long size = (length + parts - 1) / parts;
    size = (size + unit - 1) / unit * unit;
    return size < unit ? unit : size;
}

static long clamp_multiple(long value, long unit, long lo, long hi)
{
    value = value / unit * unit;
    return value < lo ? lo : value > hi ? hi : value;
}

typedef struct {
    long mc, kc, nc; /* mc: the largest row block; each thread cuts its own rows evenly */
} blocking_t;

/* Block sizes from the build machine's caches for this order and thread count (see the header). */
static blocking_t choose_blocking(long n, int threads)
{
    const long sharing = threads < PRK_CORE_CPUS ? threads : PRK_CORE_CPUS;
#ifdef KC
    long kc = KC;
#else
    long kc = clamp_multiple(PRK_L1D_BYTES / sharing * (PRK_L1D_WAYS - 2) / PRK_L1D_WAYS / (long)(NR * sizeof(double)),
                             8, 32, 1024);
#endif
    kc = even_block(n, kc, 1);
#ifdef MC_MAX
    const long mc = MC_MAX / MR * MR > MR ? MC_MAX / MR * MR : MR;
#else
    const long mc = clamp_multiple(PRK_L2_BYTES / sharing / 4 / (kc * (long)sizeof(double)), MR, MR, 1020 / MR * MR);
#endif
#ifdef NC_MAX
    const long nc_max = NC_MAX / NR * NR > NR ? NC_MAX / NR * NR : NR;
#else
    const long nc_max = clamp_multiple(PRK_L3_BYTES / 2 / threads / (kc * (long)sizeof(double)), NR, NR, 8192);
#endif
    const long rows = (n + MR - 1) / MR * MR; /* no block taller than the matrix */
    return (blocking_t){mc < rows ? mc : rows, kc, even_block(n, nc_max, NR)};
}

/* Rows [*first, *last) of thread t of nt: a balanced share of the MR-row tiles (the ragged last
 * tile costs a whole one), so no thread gets a thread's worth more work at small orders. */
static void thread_rows(long n, int t, int nt, long *first, long *last)
{
    const long tiles = (n + MR - 1) / MR;
    *first = tiles * t / nt * MR;
    *last = tiles * (t + 1) / nt * MR;
    if (*last > n) *last = n;
    if (*first > n) *first = n;
}

/* Where the threads' time went (details.thread_*): a thread whose share ends early waits idle, and two
 * threads that the scheduler left on one CPU (no binding is asked for) each run at half speed. */
typedef struct {
    double *busy;  /* per thread: seconds from its start to the end of its share, summed over calls */
    double *start; /* per thread: when it started in the last call (prk_now) */
    int *cpu;      /* per thread: the CPU it finished its share on in the last call (-1: unknown) */
} thread_log_t;

static void dgemm(double *restrict c, const double *restrict a, const double *restrict b, long n, double **bps,
                  double **aps, blocking_t blk, thread_log_t log)
{
#ifdef _OPENMP
#pragma omp parallel
#endif
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const double started = prk_now();
        double *ap = aps[t], *bp = bps[t];
        long first, last;
        thread_rows(n, t, nt, &first, &last);
        const long mc = even_block(last - first, blk.mc, MR);
        for (long jc = 0; jc < n && last > first; jc += blk.nc) {
            const long nc = n - jc < blk.nc ? n - jc : blk.nc;
            for (long pc = 0; pc < n; pc += blk.kc) {
                const long kc = n - pc < blk.kc ? n - pc : blk.kc;
                pack_b(bp, b, n, pc, kc, jc, nc);
                for (long ic = first; ic < last; ic += mc) {
                    const long m = last - ic < mc ? last - ic : mc;
                    pack_a(ap, a, n, ic, m, pc, kc);
                    macro_kernel(c, ap, bp, n, ic, m, jc, nc, kc);
                }
            }
        }
        log.start[t] = started;
        log.busy[t] += prk_now() - started;
        log.cpu[t] = CURRENT_CPU();
    }
}

/* 1 when two threads finished their shares on one CPU in the last call, 0 when not, -1 when unknown. */
static int threads_shared_a_cpu(const int *cpu, int threads)
{
    for (int t = 0; t < threads; t++) {
        if (cpu[t] < 0) return -1;
        for (int u = 0; u < t; u++)
            if (cpu[u] == cpu[t]) return 1;
    }
    return 0;
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
    const blocking_t blk = choose_blocking(n, threads);
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

    const thread_log_t log = {prk_alloc(sizeof(double) * (size_t)threads), prk_alloc(sizeof(double) * (size_t)threads),
                              prk_alloc(sizeof(int) * (size_t)threads)};
    int shared_cpu_iterations = 0;
    double late_start = 0.0; /* over the timed iterations: the last thread's start after the call began */
    for (int iter = 0; iter <= iterations; iter++) {
        if (iter == 1) /* the warm-up's time is not summarized, nor where its threads went */
            for (int t = 0; t < threads; t++) log.busy[t] = 0.0;
        double t0 = prk_now();
        dgemm(c, a, b, n, bps, aps, blk, log);
        times[iter] = prk_now() - t0;
        if (iter > 0) {
            double last = t0;
            for (int t = 0; t < threads; t++) last = fmax(last, log.start[t]);
            late_start += last - t0;
        }
        const int shared = threads_shared_a_cpu(log.cpu, threads);
        if (iter > 0) shared_cpu_iterations = shared < 0 || shared_cpu_iterations < 0 ? -1 : shared_cpu_iterations + shared;
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
        char blocking[128], caches[160];
        snprintf(blocking, sizeof(blocking), "MRxNR %dx%d (%d-double vectors), KC %ld, MC %ld, NC %ld", MR, NR, VL,
                 blk.kc, blk.mc, blk.nc);
        snprintf(caches, sizeof(caches), "L1d %ld KiB %d-way, L2 %ld KiB, L3 %ld KiB, %d CPU(s) per core",
                 (long)PRK_L1D_BYTES / 1024, PRK_L1D_WAYS, (long)PRK_L2_BYTES / 1024, (long)PRK_L3_BYTES / 1024,
                 PRK_CORE_CPUS);
        prk_json_str(&r.details, "blocking_caches", caches);
        prk_json_str(&r.details, "thread_split", "rows in balanced shares of MR-row tiles, each cut into equal "
                                                 "row blocks of at most MC");
        prk_json_str(&r.details, "blocking", blocking);
    }
    {
        double timed = 0.0, least = INFINITY, most = 0.0;
        for (int iter = 1; iter <= iterations; iter++) timed += times[iter];
        for (int t = 0; t < threads; t++) {
            least = fmin(least, log.busy[t] / timed);
            most = fmax(most, log.busy[t] / timed);
        }
        /* each thread's time at work over the timed iterations' time: the least busy thread shows idling */
        prk_json_num(&r.details, "thread_busy_share_min", least);
        prk_json_num(&r.details, "thread_busy_share_max", most);
        /* the time until the last thread started, over the timed time: waking threads, not the split */
        prk_json_num(&r.details, "thread_start_delay_share", late_start / timed);
        /* timed iterations whose threads finished on one CPU; -1 unknown (not Linux, or no OpenMP) */
        prk_json_int(&r.details, "iterations_threads_ended_on_one_cpu", shared_cpu_iterations);
    }
    prk_finish(&r, times);
    return 0;
}
