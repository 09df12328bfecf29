/*
 * ks_test.h - helpers shared by the kernel shim's unit tests: a test
 * provider whose probes the tests fire by hand, and short forms of the
 * ioctls.  Header-only (static functions) so each test binary stays one
 * file plus the support library.
 */
#ifndef KS_TEST_H
#define KS_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ks.h"
#include "ks_provider.h"
#include "dofbuild.h"

#define KT_FN static __attribute__((unused))

/* The "ktest" provider: probes ktest:mod:func:p0 .. p7, created once. */
static ks_provider_id_t kt_prov;
static dtrace_id_t kt_probe[8];
static int kt_enables, kt_disables;

KT_FN int kt_enable_op(void *a, dtrace_id_t id, void *pa)
{
	(void)a; (void)id; (void)pa;
	kt_enables++;
	return 0;
}

KT_FN void kt_disable_op(void *a, dtrace_id_t id, void *pa)
{
	(void)a; (void)id; (void)pa;
	kt_disables++;
}

KT_FN void kt_setup(void)
{
	static const ks_provider_ops_t ops = {
		.kpo_enable = kt_enable_op, .kpo_disable = kt_disable_op,
	};
	char name[16];
	int i;

	if (kt_prov != 0)
		return;
	assert_int_equal(ks_provider_register("ktest", &ops, NULL, &kt_prov),
	    0);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		kt_probe[i] = ks_probe_create(kt_prov, "mod", "func", name, 0,
		    NULL);
		assert_int_not_equal(kt_probe[i], DTRACE_IDNONE);
	}
}

/* Fire ktest probe i on cpu with arg0, arg1. */
KT_FN void kt_fire(int i, unsigned cpu, uint64_t a0, uint64_t a1)
{
	ks_probe_ctx_t ctx;

	ks_probe_ctx_self(&ctx, kt_probe[i]);
	ctx.kpc_cpu = cpu;
	ctx.kpc_args[0] = a0;
	ctx.kpc_args[1] = a1;
	ks_probe_fire(&ctx);
}

/* Finish b and ENABLE it on st; returns the ioctl's result.  On failure
 * the message is copied to msg (if not NULL). */
KT_FN int kt_enable_msg(ks_state_t *st, dofb_t *b, char *msg, size_t len,
    uint32_t *nmatched)
{
	dtrace_enable_arg_t ea;
	size_t size;
	void *img = dofb_finish(b, &size);
	int rc;

	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	rc = ks_ioctl(st, DTRACEIOC_ENABLE, &ea);
	if (msg != NULL)
		snprintf(msg, len, "%s", ea.dtea_errmsg);
	if (rc != 0 && msg == NULL)
		print_message("ENABLE: %s\n", ks_errmsg(st));
	if (nmatched != NULL)
		*nmatched = ea.dtea_nmatched;
	free(img);
	dofb_free(b);
	return rc;
}

KT_FN int kt_enable(ks_state_t *st, dofb_t *b)
{
	return kt_enable_msg(st, b, NULL, 0, NULL);
}

KT_FN void kt_go(ks_state_t *st)
{
	uint32_t cpu;

	if (ks_ioctl(st, DTRACEIOC_GO, &cpu) != 0)
		print_message("GO: %s\n", ks_errmsg(st));
	assert_true(ks_getopt(st, DTRACEOPT_BUFSIZE) > 0);
}

/* Snapshot cpu's principal (agg = 0) or aggregation buffer into buf. */
KT_FN uint64_t kt_snap(ks_state_t *st, unsigned cpu, char *buf,
    uint64_t size, int agg, uint64_t *drops)
{
	dtrace_bufdesc_t d;

	memset(&d, 0, sizeof(d));
	d.dtbd_cpu = cpu;
	d.dtbd_size = size;
	d.dtbd_data = buf;
	assert_int_equal(ks_ioctl(st, agg ? DTRACEIOC_AGGSNAP :
	    DTRACEIOC_BUFSNAP, &d), 0);
	if (drops != NULL)
		*drops = d.dtbd_drops;
	return d.dtbd_size;
}

/* A one-clause enabling of ktest probe i with actions. */
KT_FN uint32_t kt_clause(dofb_t *b, int i, uint32_t pred,
    const dof_actdesc_t *acts, uint32_t n)
{
	char name[16];
	uint32_t pd, as = DOF_SECIDX_NONE;

	snprintf(name, sizeof(name), "p%d", i);
	pd = dofb_probedesc(b, "ktest", "mod", "func", name);
	if (n != 0)
		as = dofb_actions(b, acts, n);
	return dofb_ecb(b, pd, pred, as, 1);
}

KT_FN dtrace_status_t kt_status(ks_state_t *st)
{
	dtrace_status_t s;

	assert_int_equal(ks_ioctl(st, DTRACEIOC_STATUS, &s), 0);
	return s;
}

/* DIF: return speculation(). */
KT_FN uint32_t kt_speculation_difo(dofb_t *b)
{
	dif_instr_t code[] = {
		DIF_INSTR_CALL(DIF_SUBR_speculation, 1),
		DIF_INSTR_RET(1),
	};
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 4 };

	return dofb_difo(b, code, 2, NULL, 0, NULL, 0, NULL, 0, t);
}

/*
 * The speculation tests' state, started: p0 { trace(speculation()) }
 * (EPID 1), p1 { speculate(arg0); trace(arg1) } (2), p2 { commit(arg0) }
 * (3), p3 { discard(arg0) } (4), with nspec and, if not 0, specsize and
 * cleanrate.
 */
KT_FN ks_state_t *kt_spec_state(uint64_t nspec, uint64_t specsize,
    uint64_t cleanrate)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[2];

	kt_setup();
	dofb_option(b, DTRACEOPT_NSPEC, nspec);
	if (specsize != 0)
		dofb_option(b, DTRACEOPT_SPECSIZE, specsize);
	if (cleanrate != 0)
		dofb_option(b, DTRACEOPT_CLEANRATE, cleanrate);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, kt_speculation_difo(b), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 1);
	a[0] = dofb_act(DTRACEACT_SPECULATE, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 1), 0);
	kt_clause(b, 1, DOF_SECIDX_NONE, a, 2);
	a[0] = dofb_act(DTRACEACT_COMMIT, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 2, DOF_SECIDX_NONE, a, 1);
	a[0] = dofb_act(DTRACEACT_DISCARD, dofb_difo_arg(b, 0), 0);
	kt_clause(b, 3, DOF_SECIDX_NONE, a, 1);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	return st;
}

#endif /* KS_TEST_H */
