/*
 * PRK sparse (serial and OpenMP): sparse matrix-vector multiplication.
 *
 * The matrix is the star difference stencil of radius r on a periodic 2^lsize x 2^lsize grid,
 * one row per grid point (order 4^lsize), 4r+1 non-zeroes per row, stored CSR-like with the
 * column indices of each row sorted. As in PRK's default build the linearised grid indices are
 * scrambled by bit reversal over 2*lsize bits, so the vector is read at irregular strides.
 * Matrix entries are 1/(column+1). Each iteration: vector[i] += i+1, then result += matrix*vector.
 *
 * Validation (PRK): sum(result) = nent*(iterations+1)*(iterations+2)/2, absolute error
 * below epsilon (every product is (iteration+1) up to rounding).
 * Usage: sparse <iterations> <log2 grid size> <radius>
 */
#include "prk_common.h"

/* OpenMP: rows are handed out in dynamic chunks, so that on a shared machine a thread that loses
 * its core for a while does not hold the whole iteration back. */
#define ROWS_PER_CHUNK 4096

static uint64_t reverse_bits(uint64_t x, int bits)
{
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - bits);
}

int main(int argc, char **argv)
{
    prk_check_argc(argc, 3, 3, "sparse <iterations> <log2 grid size> <radius>");
    const int iterations = (int)prk_arg_long(argv[1], "iterations", 1, 10000000);
    const int lsize = (int)prk_arg_long(argv[2], "log2 grid size", 0, 15);
    const int radius = (int)prk_arg_long(argv[3], "radius", 0, 1000);
    const long size = 1L << lsize, size2 = size * size;
    if (size < 2L * radius + 1)
        prk_bad_args("grid extent %ld is smaller than the stencil diameter 2*%d+1", size, radius);
    const int stencil = 4 * radius + 1;
    const long nent = size2 * stencil;

    double *matrix = prk_alloc(prk_mul_size((size_t)nent, sizeof(double), "matrix"));
    uint32_t *col = prk_alloc(prk_mul_size((size_t)nent, sizeof(uint32_t), "matrix"));
    double *vector = prk_alloc(sizeof(double) * (size_t)size2);
    double *result = prk_alloc(sizeof(double) * (size_t)size2);
    double *times = prk_alloc(sizeof(double) * (size_t)(iterations + 1));

#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long row = 0; row < size2; row++) {
        const long i = row % size, j = row / size;
        uint32_t *c = col + row * stencil;
#define LIN(ii, jj) reverse_bits((uint64_t)(ii) + ((uint64_t)(jj) << lsize), 2 * lsize)
        int e = 0;
        c[e++] = (uint32_t)LIN(i, j);
        for (long r = 1; r <= radius; r++) {
            c[e++] = (uint32_t)LIN((i + r) % size, j);
            c[e++] = (uint32_t)LIN((i - r + size) % size, j);
            c[e++] = (uint32_t)LIN(i, (j + r) % size);
            c[e++] = (uint32_t)LIN(i, (j - r + size) % size);
        }
#undef LIN
        for (int a = 1; a < stencil; a++) { /* insertion sort: CSR rows read the vector in order */
            uint32_t v = c[a];
            int b = a - 1;
            while (b >= 0 && c[b] > v) {
                c[b + 1] = c[b];
                b--;
            }
            c[b + 1] = v;
        }
        for (int k = 0; k < stencil; k++) matrix[row * stencil + k] = 1.0 / ((double)c[k] + 1.0);
        vector[row] = 0.0;
        result[row] = 0.0;
    }

    for (int iter = 0; iter <= iterations; iter++) {
        double t0 = prk_now();
#ifdef _OPENMP
#pragma omp parallel
#endif
        {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
#endif
            for (long row = 0; row < size2; row++) vector[row] += (double)(row + 1);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
#endif
            for (long row = 0; row < size2; row++) {
                const double *restrict m = matrix + row * stencil;
                const uint32_t *restrict c = col + row * stencil;
                double temp = 0.0;
                for (int k = 0; k < stencil; k++) temp += m[k] * vector[c[k]];
                result[row] += temp;
            }
        }
        times[iter] = prk_now() - t0;
    }

    if (prk_perturb()) result[size2 / 2] += 1.0;
    const double reference = 0.5 * (double)nent * (double)(iterations + 1) * (double)(iterations + 2);
    double sum = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : sum)
#endif
    for (long row = 0; row < size2; row++) sum += result[row];

    prk_report_t r;
    prk_report_init(&r, "sparse", iterations, lsize);
    prk_json_int(&r.parameters, "lsize", lsize);
    prk_json_int(&r.parameters, "radius", radius);
    prk_json_bool(&r.parameters, "scramble", 1);
    prk_json_num(&r.parameters, "prk_work_per_iteration", 2.0 * (double)nent);
    r.threads = prk_thread_count();
    /* values and 32-bit indices streamed, vector filled (RMW) and read, result RMW */
    r.bytes = 12.0 * (double)nent + 40.0 * (double)size2;
    /* a multiply-add per non-zero, the result update and the vector fill per row */
    r.flops = 2.0 * (double)nent + 2.0 * (double)size2;
    r.rate_in_bytes = 0;
    r.error = fabs(sum - reference);
    r.valid = r.error <= r.tolerance;
    prk_json_num(&r.details, "vector_sum", sum);
    prk_json_num(&r.details, "reference_sum", reference);
    prk_json_str(&r.details, "error_kind", "absolute");
    prk_json_int(&r.details, "nonzeros", nent);
    prk_finish(&r, times);
    return 0;
}
