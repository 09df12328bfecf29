/*
 * tracefs.c - tracefs mount and format files (stub until the perf route).
 */
#include "prov_impl.h"

const char *prov_tracefs_root(void)
{
	return NULL;
}
