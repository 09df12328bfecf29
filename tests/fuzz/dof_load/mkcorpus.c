/*
 * mkcorpus.c - write the seed corpus of fuzz_dof_load: valid DOF images
 * built with tests/support/dofbuild.  Not part of the build; run
 *   cc -Iinclude -Itests/support tests/fuzz/dof_load/mkcorpus.c \
 *      tests/support/dofbuild.c -o /tmp/mkcorpus && /tmp/mkcorpus DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dofbuild.h"

static void save(dofb_t *b, const char *dir, const char *name)
{
	char path[512];
	size_t size;
	void *img = dofb_finish(b, &size);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL || fwrite(img, 1, size, f) != size)
		perror(path);
	if (f != NULL)
		fclose(f);
	free(img);
	dofb_free(b);
}

static uint32_t clause(dofb_t *b, const char *prov, const char *name,
    uint32_t pred, const dof_actdesc_t *a, uint32_t n)
{
	uint32_t pd = dofb_probedesc(b, prov, "", "", name);

	return dofb_ecb(b, pd, pred, n ? dofb_actions(b, a, n) :
	    DOF_SECIDX_NONE, 1);
}

static void opts(dofb_t *b, int policy)
{
	dofb_option(b, DTRACEOPT_BUFSIZE, 4096);
	dofb_option(b, DTRACEOPT_AGGSIZE, 4096);
	dofb_option(b, DTRACEOPT_DYNVARSIZE, 4096);
	dofb_option(b, DTRACEOPT_STRSIZE, 32);
	dofb_option(b, DTRACEOPT_BUFPOLICY, (uint64_t)policy);
}

static void traces(const char *dir)
{
	int p;

	for (p = 0; p < 3; p++) {
		dofb_t *b = dofb_new();
		dof_actdesc_t a[4];
		char name[32];

		opts(b, p);
		a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
		a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_str(b, "str"), 0);
		a[2] = dofb_act(DTRACEACT_STACK, DOF_SECIDX_NONE, 4);
		a[3] = dofb_act(DTRACEACT_USTACK, DOF_SECIDX_NONE, 3);
		clause(b, "fuzz", "p0", dofb_difo_argeq(b, 1, 4), a, 4);
		clause(b, "dtrace", "BEGIN", DOF_SECIDX_NONE, NULL, 0);
		a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 9, 2), 0);
		clause(b, "dtrace", "END", DOF_SECIDX_NONE, a, 1);
		snprintf(name, sizeof(name), "trace-policy%d", p);
		save(b, dir, name);
	}
}

static void aggs(const char *dir)
{
	static const uint32_t kinds[] = { DTRACEAGG_COUNT, DTRACEAGG_SUM,
	    DTRACEAGG_MIN, DTRACEAGG_MAX, DTRACEAGG_AVG, DTRACEAGG_STDDEV,
	    DTRACEAGG_QUANTIZE, DTRACEAGG_LQUANTIZE, DTRACEAGG_LLQUANTIZE };
	dofb_t *b = dofb_new();
	dof_actdesc_t a[32];
	uint32_t k = 0, i;

	opts(b, 2);
	for (i = 0; i < 9; i++) {
		uint32_t start = k;

		a[k++] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
		if (i >= 6)
			a[k++] = dofb_act(DTRACEACT_DIFEXPR,
			    dofb_difo_int(b, 2, 8), 0);
		a[k] = dofb_act(kinds[i], i ? dofb_difo_arg(b, 1) :
		    DOF_SECIDX_NONE, i == 7 ? DTRACE_LQUANTIZE_ENCODE(2, 5, 0) :
		    i == 8 ? DTRACE_LLQUANTIZE_ENCODE(10, 0, 2, 10) : 0);
		a[k].dofa_ntuple = k - start;
		a[k].dofa_uarg = i + 1;
		k++;
	}
	clause(b, "fuzz", "p1", DOF_SECIDX_NONE, a, k);
	save(b, dir, "aggs");
}

static void specs(const char *dir)
{
	dofb_t *b = dofb_new();
	dif_instr_t code[] = { DIF_INSTR_CALL(DIF_SUBR_speculation, 1),
	    DIF_INSTR_RET(1) };
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 4 };
	dof_actdesc_t a[2];

	opts(b, 2);
	dofb_option(b, DTRACEOPT_NSPEC, 2);
	dofb_option(b, DTRACEOPT_SPECSIZE, 64);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo(b, code, 2, NULL, 0, NULL,
	    0, NULL, 0, t), 0);
	clause(b, "fuzz", "p0", DOF_SECIDX_NONE, a, 1);
	a[0] = dofb_act(DTRACEACT_SPECULATE, dofb_difo_int(b, 1, 8), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 1), 0);
	clause(b, "fuzz", "p1", DOF_SECIDX_NONE, a, 2);
	a[0] = dofb_act(DTRACEACT_COMMIT, dofb_difo_int(b, 1, 8), 0);
	clause(b, "fuzz", "p2", DOF_SECIDX_NONE, a, 1);
	a[0] = dofb_act(DTRACEACT_DISCARD, dofb_difo_int(b, 2, 8), 0);
	clause(b, "fuzz", "p3", DOF_SECIDX_NONE, a, 1);
	save(b, dir, "specs");
}

static void errors(const char *dir)
{
	dofb_t *b = dofb_new();
	dif_instr_t code[] = { DIF_INSTR_SETX(0, 1),
	    DIF_INSTR_FMT(DIF_OP_UDIV, 1, 0, 3), DIF_INSTR_RET(3) };
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };
	uint64_t one = 1;
	dof_actdesc_t a[3];
	int i;

	opts(b, 2);
	for (i = 0; i < 3; i++)
		a[i] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b,
		    (unsigned)i + 1), 0);
	clause(b, "dtrace", "ERROR", DOF_SECIDX_NONE, a, 3);
	a[0] = dofb_act(DTRACEACT_PRINTF, DOF_SECIDX_NONE, dofb_str(b, "%d"));
	a[0].dofa_strtab = DOFB_STRTAB;
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo(b, code, 3, &one, 1, NULL,
	    0, NULL, 0, t), 0);
	a[2] = dofb_act(DTRACEACT_EXIT, dofb_difo_int(b, 0, 4), 0);
	clause(b, "fuzz", "p*", DOF_SECIDX_NONE, a, 3);
	save(b, dir, "errors");
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";

	traces(dir);
	aggs(dir);
	specs(dir);
	errors(dir);
	return 0;
}
