/*
 * perf_impl.h - what perf.c (the rings and the drain thread) and
 * perf_ctx.c (a sample's firing context) share.  Private to
 * providers/perf/.
 */
#ifndef PROV_PERF_IMPL_H
#define PROV_PERF_IMPL_H

#include <stdint.h>

/* The user registers sampled (PERF_SAMPLE_REGS_USER): the mask asked
 * for, how many perf writes, how many uregs[] has (see map_uregs). */
#if defined(__x86_64__)		/* user registers sampled (see map_uregs) */
#define UREGS_MASK	0xff0fffull
#define UREGS_N		20
#define NUREGS		21
#else
#define UREGS_MASK	0ull
#define UREGS_N		0
#define NUREGS		1
#endif

/* Realtime minus monotonic ns for the drain pass in progress (drain
 * thread). */
uint64_t prov_perf_wall_off(void);

#endif /* PROV_PERF_IMPL_H */
