/*
 * alloc.c - the one allocation wrapper of the shim's non-DIF files, with
 * a test hook that fails the Nth allocation from now (STYLE.md section 5),
 * so tests can walk every failure path of ENABLE and GO.  Memory comes
 * from malloc and is released with free().
 */
#include <stdlib.h>
#include <string.h>
#include "ks_impl.h"

static unsigned long fail_at;		/* 0: never; else countdown */

void ks_alloc_fail_nth(unsigned long n)
{
	__atomic_store_n(&fail_at, n, __ATOMIC_RELAXED);
}

unsigned long ks_alloc_fail_pending(void)
{
	return __atomic_load_n(&fail_at, __ATOMIC_RELAXED);
}

/* Count one allocation; 1 if this one must fail. */
static int injected(void)
{
	unsigned long n = __atomic_load_n(&fail_at, __ATOMIC_RELAXED);

	if (n == 0)
		return 0;
	if (__atomic_sub_fetch(&fail_at, 1, __ATOMIC_RELAXED) == 0)
		return 1;
	return 0;
}

void *ks_malloc(size_t n)
{
	return injected() ? NULL : malloc(n);
}

void *ks_calloc(size_t n, size_t size)
{
	return injected() ? NULL : calloc(n, size);
}

void *ks_realloc(void *p, size_t n)
{
	return injected() ? NULL : realloc(p, n);
}

/* n zeroed objects of size bytes at an address aligned to align (a power
 * of two, size a multiple of it): per-CPU counters on lines of their own. */
void *ks_calloc_aligned(size_t align, size_t n, size_t size)
{
	void *p;

	if (injected() || n == 0 || size > (size_t)-1 / n ||
	    (p = aligned_alloc(align, n * size)) == NULL)
		return NULL;
	memset(p, 0, n * size);
	return p;
}
