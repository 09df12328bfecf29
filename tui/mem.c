/*
 * mem.c - the TUI's allocator: malloc and friends behind one wrapper
 * with a test hook that fails the Nth allocation from now, so unit tests
 * can walk every out-of-memory path of the model and panes.  Memory from
 * here is freed with free().
 */
#include <stdlib.h>
#include <string.h>
#include "tui_model.h"

static long fail_at = -1;	/* allocations left before one fails; -1 never */

/* Arm the hook: the allocation n from now fails (0: the next one), -1
 * disarms.  Returns what was left of the previous setting: -1 if it
 * fired (or was off), else how many allocations it was still waiting for. */
long tui_mem_fail_after(long n)
{
	long left = fail_at;

	fail_at = n;
	return left;
}

static int fails(void)
{
	if (fail_at < 0)
		return 0;
	return fail_at-- == 0;	/* reaches -1 once it has fired */
}

void *tui_malloc(size_t n)
{
	return fails() ? NULL : malloc(n);
}

void *tui_calloc(size_t n, size_t size)
{
	return fails() ? NULL : calloc(n, size);
}

void *tui_realloc(void *p, size_t n)
{
	return fails() ? NULL : realloc(p, n);
}

char *tui_strdup(const char *s)
{
	return fails() ? NULL : strdup(s);
}

char *tui_strndup(const char *s, size_t n)
{
	return fails() ? NULL : strndup(s, n);
}
