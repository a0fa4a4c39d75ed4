/*
 * The PRK synch_p2p recurrence on a block, shared by the serial/OpenMP and MPI programs:
 *   A[i][j] = A[i-1][j] + A[i][j-1] - A[i-1][j-1]
 * for rows [i0, i1) and columns [j0, j1), given row i0-1 and column j0-1.
 *
 * Why a skewed wavefront: along a row every point depends on its left neighbour, so a plain row
 * sweep runs at the latency of two dependent additions per point. Processing P2P_G rows at once,
 * row i0+k lagging k columns behind row i0, gives P2P_G independent chains per step; the values
 * a row needs from the row above were computed one and two steps earlier and stay in registers.
 * The arithmetic per point is exactly PRK's (same operands, same order of the two operations).
 */
#ifndef P2P_CORE_H
#define P2P_CORE_H

#define P2P_G 8

/* One point, PRK order: up + left - upleft. */
#define P2P_POINT(a, ld, i, j) \
    ((a)[(i) * (ld) + (j)] = (a)[((i)-1) * (ld) + (j)] + (a)[(i) * (ld) + (j)-1] - (a)[((i)-1) * (ld) + (j)-1])

/* Steps [s0, s1) of the skewed sweep of rows i..i+P2P_G-1, each point only if its column is in range. */
static void p2p_group_edges(double *a, long ld, long i, long j0, long j1, long s0, long s1)
{
    for (long s = s0; s < s1; s++)
        for (long k = 0; k < P2P_G; k++) {
            long j = s - k;
            if (j >= j0 && j < j1) P2P_POINT(a, ld, i + k, j);
        }
}

static void p2p_group(double *restrict a, long ld, long i, long j0, long j1)
{
    const long s_begin = j0 + P2P_G - 1; /* first step where all rows are in range */
    p2p_group_edges(a, ld, i, j0, j1, j0, s_begin);
    double *restrict up = a + (i - 1) * ld;
    double *rows[P2P_G];
    double x[P2P_G], p[P2P_G];
    for (int k = 0; k < P2P_G; k++) rows[k] = a + (i + k) * ld;
    /* x[k] = row k at its column left of this step's, p[k] = the one before that */
#pragma GCC unroll 8
    for (int k = 0; k < P2P_G; k++) {
        x[k] = rows[k][s_begin - k - 1];
        p[k] = rows[k][s_begin - k - 2 >= j0 - 1 ? s_begin - k - 2 : j0 - 1];
    }
    for (long s = s_begin; s < j1; s++) {
        double nv[P2P_G];
        nv[0] = up[s] + x[0] - up[s - 1];
#pragma GCC unroll 8
        for (int k = 1; k < P2P_G; k++) nv[k] = x[k - 1] + x[k] - p[k - 1];
#pragma GCC unroll 8
        for (int k = 0; k < P2P_G; k++) {
            rows[k][s - k] = nv[k];
            p[k] = x[k];
            x[k] = nv[k];
        }
    }
    p2p_group_edges(a, ld, i, j0, j1, j1 > s_begin ? j1 : s_begin, j1 + P2P_G - 1);
}

/* Rows [i0, i1) x columns [j0, j1), dependencies respected. */
static void p2p_block(double *a, long ld, long i0, long i1, long j0, long j1)
{
    if (j1 <= j0) return;
    long i = i0;
    if (j1 - j0 >= 2 * P2P_G)
        for (; i + P2P_G <= i1; i += P2P_G) p2p_group(a, ld, i, j0, j1);
    for (; i < i1; i++)
        for (long j = j0; j < j1; j++) P2P_POINT(a, ld, i, j);
}

#endif
