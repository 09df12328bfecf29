/*
 * test_dif_util.h - helpers shared by the DIF unit tests (test_dif_*.c):
 * a builder for small DIF objects (instructions with the DIF_INSTR_*
 * macros, integer/string/variable tables) and a firing fixture (probe
 * context, mstate, scratch, clause locals, variable storage).
 *
 * Each test binary runs its group twice, once per dispatch style
 * (td_dispatch), so the switch and the computed-goto loops are both
 * tested on every case.
 */
#ifndef TEST_DIF_UTIL_H
#define TEST_DIF_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "dif.h"

#define TD_MAXI		512
#define TD_MAXINT	64
#define TD_MAXSTR	4096
#define TD_MAXVAR	32
#define TD_STRSIZE	256

static int td_dispatch = KS_DIF_DISPATCH_SWITCH;

typedef struct tdif {
	ks_difo_t dp;
	dif_instr_t text[TD_MAXI];
	uint64_t ints[TD_MAXINT];
	char strs[TD_MAXSTR];
	dtrace_difv_t vars[TD_MAXVAR];
} tdif_t;

static inline void td_init(tdif_t *t)
{
	memset(t, 0, sizeof (*t));
	t->dp.dtdo_buf = t->text;
	t->dp.dtdo_inttab = t->ints;
	t->dp.dtdo_strtab = t->strs;
	t->dp.dtdo_vartab = t->vars;
	t->dp.dtdo_strlen = 1;		/* offset 0 is "" */
	t->dp.dtdo_rtype.dtdt_kind = DIF_TYPE_CTF;
	t->dp.dtdo_rtype.dtdt_size = 8;
}

static inline void td_emit(tdif_t *t, dif_instr_t in)
{
	assert_true(t->dp.dtdo_len < TD_MAXI);
	t->text[t->dp.dtdo_len++] = in;
}

/* Index of the next instruction (for branch labels). */
static inline uint32_t td_pc(const tdif_t *t)
{
	return t->dp.dtdo_len;
}

static inline unsigned td_int(tdif_t *t, uint64_t v)
{
	assert_true(t->dp.dtdo_intlen < TD_MAXINT);
	t->ints[t->dp.dtdo_intlen] = v;
	return t->dp.dtdo_intlen++;
}

static inline unsigned td_str(tdif_t *t, const char *s)
{
	size_t n = strlen(s) + 1;
	unsigned off = t->dp.dtdo_strlen;

	assert_true(off + n <= TD_MAXSTR);
	memcpy(t->strs + off, s, n);
	t->dp.dtdo_strlen += (uint32_t)n;
	return off;
}

/* Emit rd = v (SETX of a new integer table entry). */
static inline void td_setx(tdif_t *t, unsigned rd, uint64_t v)
{
	td_emit(t, DIF_INSTR_SETX(td_int(t, v), rd));
}

static inline void td_sets(tdif_t *t, unsigned rd, const char *s)
{
	td_emit(t, DIF_INSTR_SETS(td_str(t, s), rd));
}

/* Declare a user variable; string variables when str != 0. */
static inline void td_var(tdif_t *t, uint32_t id, unsigned kind,
    unsigned scope, int str)
{
	dtrace_difv_t *v = &t->vars[t->dp.dtdo_varlen++];

	memset(v, 0, sizeof (*v));
	v->dtdv_id = id;
	v->dtdv_kind = (uint8_t)kind;
	v->dtdv_scope = (uint8_t)scope;
	v->dtdv_type.dtdt_kind = str ? DIF_TYPE_STRING : DIF_TYPE_CTF;
	v->dtdv_type.dtdt_flags = str ? DIF_TF_BYREF : 0;
	v->dtdv_type.dtdt_size = str ? TD_STRSIZE : 8;
}

/* A firing: context, mstate and storage. */
typedef struct tfire {
	ks_probe_ctx_t ctx;
	ks_mstate_t ms;
	ks_vstate_t *vs;
	uint64_t locals[16];
	char scratch[8192] __attribute__((aligned(16)));
	const char *probe[4];
} tfire_t;

static inline void tf_init_sized(tfire_t *f, uint64_t dynvarsize,
    uint64_t strsize)
{
	memset(f, 0, sizeof (*f));
	f->ctx.kpc_id = 42;
	f->ctx.kpc_cpu = 1;
	f->ctx.kpc_pid = getpid();
	f->ctx.kpc_ppid = getppid();
	f->ctx.kpc_tid = (int32_t)syscall(SYS_gettid);
	f->ctx.kpc_uid = 1000;
	f->ctx.kpc_gid = 100;
	f->ctx.kpc_timestamp = 123456789;
	strcpy(f->ctx.kpc_execname, "foo");
	f->probe[0] = "syscall";
	f->probe[1] = "vmlinux";
	f->probe[2] = "read";
	f->probe[3] = "entry";
	f->vs = ks_vstate_create(dynvarsize, strsize);
	assert_non_null(f->vs);
	f->ms.kms_ctx = &f->ctx;
	f->ms.kms_epid = 7;
	memcpy(f->ms.kms_probe, f->probe, sizeof (f->probe));
	f->ms.kms_vstate = f->vs;
	f->ms.kms_locals = f->locals;
	f->ms.kms_nlocals = 16;
	f->ms.kms_strsize = strsize;
	f->ms.kms_scratch = f->scratch;
	f->ms.kms_scratch_size = sizeof (f->scratch);
}

static inline void tf_init(tfire_t *f)
{
	tf_init_sized(f, 1 << 20, TD_STRSIZE);
}

static inline void tf_fini(tfire_t *f)
{
	ks_vstate_destroy(f->vs);
	f->vs = NULL;
}

/* Verify (must pass), declare and run t in f; the result. */
static inline uint64_t td_run(tdif_t *t, tfire_t *f)
{
	char err[256];

	if (ks_dif_verify(&t->dp, err, sizeof (err)) != 0)
		fail_msg("verifier refused: %s", err);
	if (ks_vstate_declare(f->vs, &t->dp, err, sizeof (err)) != 0)
		fail_msg("declare refused: %s", err);
	return ks_dif_emulate_with(&t->dp, &f->ms, td_dispatch);
}

/* Run t in a fresh firing; the result, and the fault if faultp. */
static inline uint64_t td_run1(tdif_t *t, uint32_t *faultp)
{
	tfire_t f;
	uint64_t v;

	tf_init(&f);
	v = td_run(t, &f);
	if (faultp != NULL)
		*faultp = f.ms.kms_fault;
	else if (f.ms.kms_fault != 0)
		fail_msg("unexpected fault %u (%s) at pc %u addr %#llx",
		    f.ms.kms_fault, ks_dif_fault_name(f.ms.kms_fault),
		    f.ms.kms_fault_pc,
		    (unsigned long long)f.ms.kms_fault_addr);
	tf_fini(&f);
	return v;
}

static inline int td_setup_switch(void **state)
{
	td_dispatch = KS_DIF_DISPATCH_SWITCH;
	return 0;
}

static inline int td_setup_goto(void **state)
{
	td_dispatch = KS_DIF_DISPATCH_GOTO;
	return 0;
}

/* Run a test array once per dispatch style. */
#define TD_RUN_BOTH(tests) \
	(cmocka_run_group_tests_name("switch dispatch", tests, \
	    td_setup_switch, NULL) | \
	 cmocka_run_group_tests_name("goto dispatch", tests, \
	    td_setup_goto, NULL))

#endif /* TEST_DIF_UTIL_H */
