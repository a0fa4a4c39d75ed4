/*
 * The PRK star stencil applied to a block of rows, shared by the serial/OpenMP and MPI programs.
 *
 * Star stencil of radius r (PRK): weights w(0,+k) = w(+k,0) = 1/(2kr), w(0,-k) = w(-k,0) = -1/(2kr)
 * for k = 1..r; the centre weight is 0 and is not computed (so 4r multiply-adds per point,
 * 8r flops, all of them executed and counted). Applied to in = cx*i + cy*j (cx = cy = 1) the
 * stencil yields exactly cx + cy per point, which is what validation checks.
 *
 * The radius is dispatched to specialised copies for r = 1..4 so the k loops unroll and the j loop
 * vectorises; other radii use the generic loop.
 */
#ifndef STENCIL_CORE_H
#define STENCIL_CORE_H

#include <stddef.h>

static inline __attribute__((always_inline)) void stencil_rows_r(double *restrict out, const double *restrict in,
                                                                 long ld, long i0, long i1, long j0, long j1,
                                                                 const double *restrict w, const int r)
{
    for (long i = i0; i < i1; i++) {
        double *restrict o = out + i * ld;
        const double *restrict c = in + i * ld;
#pragma GCC ivdep
        for (long j = j0; j < j1; j++) {
            double acc = o[j];
            for (int k = 1; k <= r; k++) {
                acc += w[k] * c[j + k];
                acc -= w[k] * c[j - k];
                acc += w[k] * c[j + k * ld];
                acc -= w[k] * c[j - k * ld];
            }
            o[j] = acc;
        }
    }
}

static void stencil_rows_1(double *restrict o, const double *restrict in, long ld, long i0, long i1, long j0,
                           long j1, const double *restrict w)
{
    stencil_rows_r(o, in, ld, i0, i1, j0, j1, w, 1);
}
static void stencil_rows_2(double *restrict o, const double *restrict in, long ld, long i0, long i1, long j0,
                           long j1, const double *restrict w)
{
    stencil_rows_r(o, in, ld, i0, i1, j0, j1, w, 2);
}
static void stencil_rows_3(double *restrict o, const double *restrict in, long ld, long i0, long i1, long j0,
                           long j1, const double *restrict w)
{
    stencil_rows_r(o, in, ld, i0, i1, j0, j1, w, 3);
}
static void stencil_rows_4(double *restrict o, const double *restrict in, long ld, long i0, long i1, long j0,
                           long j1, const double *restrict w)
{
    stencil_rows_r(o, in, ld, i0, i1, j0, j1, w, 4);
}
static void stencil_rows_any(double *restrict o, const double *restrict in, long ld, long i0, long i1, long j0,
                             long j1, const double *restrict w, int r)
{
    stencil_rows_r(o, in, ld, i0, i1, j0, j1, w, r);
}

/* out[i][j] += star stencil of in, for rows [i0,i1) and columns [j0,j1); w[1..r] = 1/(2kr). */
static void stencil_rows(double *restrict out, const double *restrict in, long ld, long i0, long i1, long j0,
                         long j1, const double *restrict w, int r)
{
    switch (r) {
    case 1: stencil_rows_1(out, in, ld, i0, i1, j0, j1, w); break;
    case 2: stencil_rows_2(out, in, ld, i0, i1, j0, j1, w); break;
    case 3: stencil_rows_3(out, in, ld, i0, i1, j0, j1, w); break;
    case 4: stencil_rows_4(out, in, ld, i0, i1, j0, j1, w); break;
    default: stencil_rows_any(out, in, ld, i0, i1, j0, j1, w, r); break;
    }
}

/*
 * out += stencil(in) on rows [i0,i1) x columns [j0,j1), and in += 1 on rows [inc_lo,inc_hi) x
 * columns [inc_j0,inc_j1), fused: a row of `in` is incremented as soon as the last output row
 * that reads it (r rows further down) is done, while it is still in cache. This saves one of the
 * five passes over memory per iteration. The caller guarantees that no one else reads the rows
 * [inc_lo,inc_hi) of `in` during this call.
 */
static void stencil_sweep_fused(double *restrict out, double *restrict in, long ld, long i0, long i1, long j0,
                                long j1, const double *restrict w, int r, long inc_lo, long inc_hi, long inc_j0,
                                long inc_j1)
{
    long x = inc_lo;
    for (long i = i0; i < i1; i++) {
        stencil_rows(out, in, ld, i, i + 1, j0, j1, w, r);
        for (; x < inc_hi && x <= i - r; x++) {
            double *restrict row = in + x * ld;
            for (long j = inc_j0; j < inc_j1; j++) row[j] += 1.0;
        }
    }
    for (; x < inc_hi; x++) {
        double *restrict row = in + x * ld;
        for (long j = inc_j0; j < inc_j1; j++) row[j] += 1.0;
    }
}

static void stencil_weights(double *w, int r)
{
    w[0] = 0.0;
    for (int k = 1; k <= r; k++) w[k] = 1.0 / (2.0 * k * r);
}

#endif
