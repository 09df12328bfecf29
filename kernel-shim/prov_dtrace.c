/*
 * prov_dtrace.c - the dtrace provider: dtrace:::BEGIN, dtrace:::END and
 * dtrace:::ERROR, fired by the shim itself (GO, STOP and faults), never by
 * an event source.  Registered first, so the probes are ids 1, 2 and 3 as
 * in DTrace (KS_PROBE_BEGIN/END/ERROR).
 */
#include <stdio.h>
#include "ks_impl.h"

/* ERROR's arguments (the clause protocol in dtrace_abi.h). */
static const char *const error_args[] = {
	"uint64_t",	/* arg0: 0 */
	"uint64_t",	/* arg1: EPID */
	"uint64_t",	/* arg2: action index, 0 for the predicate */
	"uint64_t",	/* arg3: DIF offset in bytes */
	"uint64_t",	/* arg4: DTRACEFLT_* */
	"uint64_t",	/* arg5: faulting address */
};

static void dtrace_getargdesc(void *parg, dtrace_id_t id, void *probe_arg,
    dtrace_argdesc_t *desc)
{
	int n = (int)(sizeof(error_args) / sizeof(error_args[0]));

	if (id != KS_PROBE_ERROR || desc->dtargd_ndx >= n) {
		desc->dtargd_ndx = DTRACE_ARGNONE;
		return;
	}
	snprintf(desc->dtargd_native, sizeof(desc->dtargd_native), "%s",
	    error_args[desc->dtargd_ndx]);
}

static const ks_provider_ops_t dtrace_ops = {
	.kpo_getargdesc = dtrace_getargdesc,
};

/* Called once, from the registry's initialisation, before anything else
 * can register. */
void ks_prov_dtrace_register(void)
{
	ks_provider_id_t id;

	if (ks_provider_add("dtrace", &dtrace_ops, NULL, &id) != 0)
		return;
	(void)ks_probe_create(id, "", "", "BEGIN", 0, NULL);
	(void)ks_probe_create(id, "", "", "END", 0, NULL);
	(void)ks_probe_create(id, "", "", "ERROR", 0, NULL);
}
