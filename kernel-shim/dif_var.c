/*
 * dif_var.c - variable storage of one consumer (first version: built-ins
 * and stubs; the dynamic variable arena follows).
 */
#include <stdlib.h>
#include <string.h>
#include "dif_impl.h"

struct ks_vstate {
	uint64_t kvs_strsize;
	uint64_t kvs_dyndrops;
	uint64_t kvs_used;
};

ks_vstate_t *ks_vstate_create(uint64_t dynvarsize, uint64_t strsize)
{
	ks_vstate_t *vs = calloc(1, sizeof (*vs));

	if (vs != NULL)
		vs->kvs_strsize = strsize;
	(void)dynvarsize;
	return vs;
}

void ks_vstate_destroy(ks_vstate_t *vs)
{
	free(vs);
}

int ks_vstate_declare(ks_vstate_t *vs, const ks_difo_t *dp, char *err,
    size_t errlen)
{
	return 0;
}

uint64_t ks_vstate_dyndrops(const ks_vstate_t *vs) { return vs->kvs_dyndrops; }
uint64_t ks_vstate_used(const ks_vstate_t *vs) { return vs->kvs_used; }
uint64_t ks_vstate_strsize(const ks_vstate_t *vs) { return vs->kvs_strsize; }

unsigned ks_vstate_regions(const ks_vstate_t *vs, ks_dif_region_t *rg,
    unsigned max)
{
	return 0;
}

char *ks_vstate_strtok(ks_vstate_t *vs, int32_t tid, uint64_t **posp,
    int reset)
{
	return NULL;
}

uint64_t ks_dif_builtin(ks_dif_exec_t *x, uint32_t id) { return 0; }
uint64_t ks_dif_builtin_array(ks_dif_exec_t *x, uint32_t id, uint64_t ndx)
{
	return 0;
}
uint64_t ks_dif_ldgs(ks_dif_exec_t *x, uint32_t id) { return 0; }
void ks_dif_stgs(ks_dif_exec_t *x, uint32_t id, uint64_t val) { }
uint64_t ks_dif_lddyn(ks_dif_exec_t *x, uint32_t id, int tls, int array)
{
	return 0;
}
void ks_dif_stdyn(ks_dif_exec_t *x, uint32_t id, int tls, int array,
    uint64_t val)
{
}
