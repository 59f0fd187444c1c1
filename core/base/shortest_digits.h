/* msperf — the shortest round-trip decimal digits of a double (private to core/base). */
#ifndef MSPERF_SHORTEST_DIGITS_H
#define MSPERF_SHORTEST_DIGITS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest decimal digits that read back as value (finite, non-zero; the sign ignored),
 * the closest to value when several have that length: digits without sign, point or trailing
 * zeros, NUL-terminated (at most 17 + 1 bytes), and the exponent of the first digit
 * (|value| ≈ d.ddd × 10^exp10). What Python's repr prints (David Gay's dtoa, mode 0). */
void msperf_shortest_digits (double value, char digits[32], int *exp10);

#ifdef __cplusplus
}
#endif

#endif
