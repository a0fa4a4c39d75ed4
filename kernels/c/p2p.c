/*
 * PRK synch_p2p (serial and OpenMP) on an m x n grid (row-major, m rows of n).
 * A[0][j] = j, A[i][0] = i, the rest 0; each iteration sweeps
 *   A[i][j] = A[i-1][j] + A[i][j-1] - A[i-1][j-1]   (1 <= i < m, 1 <= j < n)
 * and then sets A[0][0] = -A[m-1][n-1], which makes the next sweep depend on this one.
 *
 * OpenMP: the columns are split into one strip per thread; a thread works through its strip in
 * chunks of rows and may start a chunk once its left neighbour has finished the same chunk
 * (a pipelined wavefront; progress counters with acquire/release, spinning politely).
 *
 * Validation (PRK): A[m-1][n-1] = (iterations+1)*(m+n-2), relative error below epsilon.
 * Usage: p2p <iterations> <m> <n>
 */
#include "prk_common.h"
#include "p2p_core.h"
#include <sched.h>

#ifdef _OPENMP
#define P2P_CHUNK 32
typedef struct {
    long value;
    char pad[64 - sizeof(long)];
} p2p_counter_t;

static void wait_for(p2p_counter_t *c, long target)
{
    unsigned spins = 0;
    while (__atomic_load_n(&c->value, __ATOMIC_ACQUIRE) < target) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (++spins > 4096) { /* do not starve the thread we wait for on a busy machine */
            sched_yield();
            spins = 0;
        }
    }
}
#endif

int main(int argc, char **argv)
{
    prk_check_argc(argc, 3, 3, "p2p <iterations> <m> <n>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const long m = prk_arg_long(argv[2], "m", 2, 1L << 30);
    const long n = prk_arg_long(argv[3], "n", 2, 1L << 30);
    const size_t elems = prk_mul_size((size_t)m, (size_t)n, "m*n");
    double *a = prk_alloc(prk_mul_size(elems, sizeof(double), "m*n"));
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));
    const int threads = prk_thread_count();

#ifdef _OPENMP
    p2p_counter_t *progress = prk_alloc(sizeof(p2p_counter_t) * (size_t)threads);
    const long chunks = (m - 1 + P2P_CHUNK - 1) / P2P_CHUNK;
#pragma omp parallel
    {
        /* first touch by the thread that owns the strip */
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long s, len;
        prk_block(n - 1, nt, t, &s, &len);
        if (t == 0) {
            s = 0;
            len += 1;
        } else
            s += 1;
        for (long i = 0; i < m; i++)
            for (long j = s; j < s + len; j++) a[i * n + j] = 0.0;
    }
#else
    memset(a, 0, elems * sizeof(double));
#endif
    for (long j = 0; j < n; j++) a[j] = (double)j;
    for (long i = 0; i < m; i++) a[i * n] = (double)i;

    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
#ifdef _OPENMP
        for (int t = 0; t < threads; t++) progress[t].value = 0;
#pragma omp parallel
        {
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            long s, len;
            prk_block(n - 1, nt, t, &s, &len);
            s += 1;
            for (long c = 0; c < chunks; c++) {
                const long i0 = 1 + c * P2P_CHUNK, i1 = i0 + P2P_CHUNK < m ? i0 + P2P_CHUNK : m;
                if (t > 0) wait_for(&progress[t - 1], c + 1);
                p2p_block(a, n, i0, i1, s, s + len);
                __atomic_store_n(&progress[t].value, c + 1, __ATOMIC_RELEASE);
            }
        }
#else
        p2p_block(a, n, 1, m, 1, n);
#endif
        a[0] = -a[(m - 1) * n + n - 1];
        times[iter] = prk_now() - t0;
    }

    const double reference = (double)(iterations + 1) * (double)(m + n - 2);
    if (prk_perturb()) a[(m - 1) * n + n - 1] += reference;
    const double corner = a[(m - 1) * n + n - 1];

    prk_report_t r;
    prk_report_init(&r, "p2p", iterations, m);
    prk_json_int(&r.parameters, "m", m);
    prk_json_int(&r.parameters, "n", n);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * (double)(m - 1) * (double)(n - 1));
    r.threads = threads;
    r.bytes = 2.0 * sizeof(double) * (double)elems; /* grid read and written once */
    r.flops = 2.0 * (double)(m - 1) * (double)(n - 1);
    r.rate_in_bytes = 0;
    r.error = fabs(corner - reference) / reference;
    r.valid = r.error <= r.tolerance;
    prk_json_num(&r.details, "corner", corner);
    prk_json_num(&r.details, "reference_corner", reference);
    prk_json_str(&r.details, "error_kind", "relative");
    prk_finish(&r, times);
    return 0;
}
