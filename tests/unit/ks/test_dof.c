/*
 * test_dof.c - the DOF loader: a valid image round-trips (EPROBE, options,
 * probe matching by description), and a corpus of malformed images, one
 * test per refusal, each checking the message and that nothing was left
 * behind.
 */
#include <dirent.h>
#include <errno.h>
#include "ks_test.h"

/* Section indices of the base image. */
enum { S_STR = 0, S_DIF = 1, S_DIFOHDR = 2, S_PROBE = 3, S_ACT = 4,
	S_ECB = 5, S_OPT = 6 };

/* ktest:::p0 { trace(arg0) } with one option; *sizep gets the size. */
static void *base_image(size_t *sizep, uint32_t kind, uint32_t ntuple)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a;
	void *img;

	a = dofb_act(kind, dofb_difo_arg(b, 0), 0);
	a.dofa_ntuple = ntuple;
	assert_int_equal(kt_clause(b, 0, DOF_SECIDX_NONE, &a, 1), S_ECB);
	dofb_option(b, DTRACEOPT_BUFSIZE, 4096);
	img = dofb_finish(b, sizep);
	dofb_free(b);
	assert_int_equal(dofb_sechdr(img, S_OPT)->dofs_type, DOF_SECT_OPTDESC);
	return img;
}

/* ENABLE img on a fresh state; returns rc, message in msg.  Checks that a
 * refusal leaves no ECB behind. */
static int try_load(void *img, size_t size, char *msg, size_t len)
{
	ks_state_t *st = ks_open();
	dtrace_enable_arg_t ea;
	dtrace_eprobedesc_t ep;
	int rc;

	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	rc = ks_ioctl(st, DTRACEIOC_ENABLE, &ea);
	snprintf(msg, len, "%s", ea.dtea_errmsg);
	if (rc != 0) {
		assert_string_equal(ks_errmsg(st), ea.dtea_errmsg);
		memset(&ep, 0, sizeof(ep));
		ep.dtepd_epid = 1;
		assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, &ep), -1);
		assert_false(ks_probe_is_enabled(kt_probe[0]));
	}
	ks_close(st);
	free(img);
	return rc;
}

static void expect_refusal(void *img, size_t size, const char *part)
{
	char msg[256];

	assert_int_equal(try_load(img, size, msg, sizeof(msg)), -1);
	if (strstr(msg, part) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", msg, part);
}

static void valid_image(void **state)
{
	size_t size;
	void *img;
	char msg[256];

	(void)state;
	kt_setup();
	img = base_image(&size, DTRACEACT_DIFEXPR, 0);
	assert_int_equal(try_load(img, size, msg, sizeof(msg)), 0);
}

static void round_trip(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];
	dtrace_eprobedesc_t *ep;
	uint32_t nm;

	(void)state;
	kt_setup();
	dofb_option(b, DTRACEOPT_BUFSIZE, 8192);
	dofb_option(b, DTRACEOPT_BUFPOLICY, DTRACEOPT_BUFPOLICY_RING);
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 1, 1), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 2, 2), 0);
	a[2] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	/* one clause, two descriptions: two probes, shared records */
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 3);
	dofb_ecb(b, dofb_probedesc(b, "ktest", "", "", "p[12]"),
	    DOF_SECIDX_NONE, S_ACT + 6, 1);
	assert_int_equal(kt_enable_msg(st, b, NULL, 0, &nm), 0);
	assert_int_equal(nm, 3);
	assert_int_equal(ks_getopt(st, DTRACEOPT_BUFSIZE), 8192);
	assert_int_equal(ks_getopt(st, DTRACEOPT_BUFPOLICY),
	    DTRACEOPT_BUFPOLICY_RING);
	assert_int_equal(ks_getopt(st, DTRACEOPT_NSPEC), 1);
	ep = calloc(1, sizeof(*ep) + 3 * sizeof(dtrace_recdesc_t));
	ep->dtepd_epid = 3;
	ep->dtepd_nrecs = 1;	/* room for one: nrecs still says 3 */
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, ep), 0);
	assert_int_equal(ep->dtepd_nrecs, 3);
	assert_int_equal(ep->dtepd_probeid, kt_probe[2]);
	assert_int_equal(ep->dtepd_rec[0].dtrd_offset, 12);
	assert_int_equal(ep->dtepd_rec[0].dtrd_size, 1);
	ep->dtepd_nrecs = 3;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, ep), 0);
	assert_int_equal(ep->dtepd_rec[1].dtrd_offset, 14);
	assert_int_equal(ep->dtepd_rec[1].dtrd_alignment, 2);
	assert_int_equal(ep->dtepd_rec[2].dtrd_offset, 16);
	assert_int_equal(ep->dtepd_size, 24);
	ep->dtepd_epid = 4;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_EPROBE, ep), -1);
	free(ep);
	ks_close(st);
}

#define MUTATE(name, part, body)					\
static void name(void **state)						\
{									\
	size_t size;							\
	char *img = base_image(&size, DTRACEACT_DIFEXPR, 0);		\
	dof_hdr_t *h = dofb_hdr(img);					\
									\
	(void)state;							\
	(void)h;							\
	kt_setup();							\
	body;								\
	expect_refusal(img, size, part);				\
}

MUTATE(bad_magic, "bad magic", h->dofh_ident[DOF_ID_MAG1] = 'X')
MUTATE(bad_model, "data model 1 is not LP64",
    h->dofh_ident[DOF_ID_MODEL] = DOF_MODEL_ILP32)
MUTATE(bad_encoding, "not little-endian",
    h->dofh_ident[DOF_ID_ENCODING] = DOF_ENCODE_MSB)
MUTATE(bad_version, "unsupported DOF version 9",
    h->dofh_ident[DOF_ID_VERSION] = 9)
MUTATE(bad_difversion, "unsupported DIF version 7",
    h->dofh_ident[DOF_ID_DIFVERS] = 7)
MUTATE(bad_iregs, "9 integer registers exceed 8",
    h->dofh_ident[DOF_ID_DIFIREG] = 9)
MUTATE(bad_tregs, "tuple registers exceed",
    h->dofh_ident[DOF_ID_DIFTREG] = 200)
MUTATE(bad_flags, "unknown flags 0x4", h->dofh_flags = 4)
MUTATE(bad_hdrsize, "header size 12", h->dofh_hdrsize = 12)
MUTATE(bad_secsize, "section header size 8", h->dofh_secsize = 8)
MUTATE(bad_loadsz, "exceed the", h->dofh_loadsz = h->dofh_filesz + 8)
MUTATE(bad_filesz, "exceed the", h->dofh_filesz = size + 1)
MUTATE(bad_secoff, "section headers at",
    h->dofh_secoff = h->dofh_loadsz - 8)
MUTATE(bad_secnum, "section headers at", h->dofh_secnum = 100000)
MUTATE(sect_out_of_bounds, "DOF section 4 (ACTDESC): data",
    dofb_sechdr(img, S_ACT)->dofs_size = 1 << 20)
MUTATE(sect_offset_wraps, "lies outside",
    dofb_sechdr(img, S_ACT)->dofs_offset = (uint64_t)-8)
MUTATE(sect_overlaps_header, "overlaps the DOF header",
    dofb_sechdr(img, S_DIF)->dofs_offset = 8)
MUTATE(sect_overlaps_table, "overlaps the DOF header or the section headers",
    dofb_sechdr(img, S_DIF)->dofs_offset = h->dofh_secoff + 16)
MUTATE(sect_align_not_pow2, "DOF section 4 (ACTDESC): alignment 12 is not",
    dofb_sechdr(img, S_ACT)->dofs_align = 12)
MUTATE(sect_misaligned, "is not aligned to 8",
    dofb_sechdr(img, S_ACT)->dofs_offset += 4)
MUTATE(sect_align_too_small, "alignment 4 is below the 8",
    dofb_sechdr(img, S_ACT)->dofs_align = 4)
MUTATE(sect_entsize, "DOF section 4 (ACTDESC): entry size 40, expected 32",
    dofb_sechdr(img, S_ACT)->dofs_entsize = 40)
MUTATE(sect_size_not_multiple, "not a multiple of the entry size",
    dofb_sechdr(img, S_ACT)->dofs_size = 33)
MUTATE(sect_dif_entsize, "DOF section 1 (DIF): entry size 8",
    dofb_sechdr(img, S_DIF)->dofs_entsize = 8)
MUTATE(link_out_of_range, "DOF section 5 (ECBDESC): probes link 999 is out",
    ((dof_ecbdesc_t *)dofb_secdata(img, S_ECB))->dofe_probes = 999)
MUTATE(link_wrong_type, "probes link 4 is a ACTDESC section, expected "
    "PROBEDESC",
    ((dof_ecbdesc_t *)dofb_secdata(img, S_ECB))->dofe_probes = S_ACT)
MUTATE(pred_wrong_type, "predicate link 1 is a DIF section",
    ((dof_ecbdesc_t *)dofb_secdata(img, S_ECB))->dofe_pred = S_DIF)
MUTATE(actions_wrong_type, "actions link 3 is a PROBEDESC",
    ((dof_ecbdesc_t *)dofb_secdata(img, S_ECB))->dofe_actions = S_PROBE)
MUTATE(difo_link_wrong_type, "DOF section 2 (DIFOHDR): link 4 is a ACTDESC",
    ((dof_difohdr_t *)dofb_secdata(img, S_DIFOHDR))->dofd_links[0] = S_ACT)
MUTATE(string_past_table, "string offset 99999 is past the end",
    ((dof_probedesc_t *)dofb_secdata(img, S_PROBE))->dofp_name = 99999)
MUTATE(strtab_unterminated, "DOF section 0 (STRTAB): string table does not "
    "end with NUL",
    ((char *)dofb_secdata(img, S_STR))[dofb_sechdr(img, S_STR)->dofs_size
    - 1] = 'x')
MUTATE(strtab_link_wrong, "is a DIF section, expected STRTAB",
    ((dof_probedesc_t *)dofb_secdata(img, S_PROBE))->dofp_strtab = S_DIF)
MUTATE(unknown_action, "action 1: unknown action kind 0x999",
    ((dof_actdesc_t *)dofb_secdata(img, S_ACT))->dofa_kind = 0x999)
MUTATE(action_needs_difo, "action 1: kind 0x1 needs a DIF object",
    ((dof_actdesc_t *)dofb_secdata(img, S_ACT))->dofa_difo = DOF_SECIDX_NONE)
MUTATE(ntuple_non_agg, "ntuple 2 on an action that does not aggregate",
    ((dof_actdesc_t *)dofb_secdata(img, S_ACT))->dofa_ntuple = 2)
MUTATE(bad_option, "DOF section 6 (OPTDESC): option 1: value 7 out of range",
    ((dof_optdesc_t *)dofb_secdata(img, S_OPT))->dofo_option = 1;
    ((dof_optdesc_t *)dofb_secdata(img, S_OPT))->dofo_value = 7)
MUTATE(unknown_option, "option 99 is unknown",
    ((dof_optdesc_t *)dofb_secdata(img, S_OPT))->dofo_option = 99)
MUTATE(truncated, "is truncated", size = 40)
MUTATE(ident_pad, "ident byte 12 must be 0", h->dofh_ident[12] = 1)

static void ntuple_too_big(void **state)
{
	size_t size;
	void *img;

	(void)state;
	kt_setup();
	img = base_image(&size, DTRACEAGG_SUM, 1);	/* nothing before it */
	expect_refusal(img, size, "action 1: ntuple 1 is inconsistent with "
	    "the 0 actions before it");
}

static void dif_refused(void **state)
{
	dofb_t *b = dofb_new();
	dif_instr_t code[] = { DIF_INSTR_SETX(0, 0), DIF_INSTR_RET(0) };
	dtrace_diftype_t t = { DIF_TYPE_CTF, CTF_K_INTEGER, 0, 0, 8 };
	uint64_t one = 1;
	dof_actdesc_t a;
	size_t size;
	void *img;

	(void)state;
	kt_setup();
	a = dofb_act(DTRACEACT_DIFEXPR, dofb_difo(b, code, 2, &one, 1, NULL,
	    0, NULL, 0, t), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, &a, 1);
	img = dofb_finish(b, &size);
	dofb_free(b);
	expect_refusal(img, size, "DOF section 3 (DIFOHDR): DIF object "
	    "refused: ");
}

static void bad_llquantize(void **state)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a[3];
	size_t size;
	void *img;

	(void)state;
	kt_setup();
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_int(b, 1, 8), 0);
	a[2] = dofb_act(DTRACEAGG_LLQUANTIZE, dofb_difo_arg(b, 1),
	    DTRACE_LLQUANTIZE_ENCODE(10, 3, 2, 10));
	a[2].dofa_ntuple = 2;
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 3);
	img = dofb_finish(b, &size);
	dofb_free(b);
	expect_refusal(img, size, "action 3: llquantize: factor 10, low 3");
}

static void quantize_needs_increment(void **state)
{
	dofb_t *b = dofb_new();
	dof_actdesc_t a[2];
	size_t size;
	void *img;

	(void)state;
	kt_setup();
	a[0] = dofb_act(DTRACEACT_DIFEXPR, dofb_difo_arg(b, 0), 0);
	a[1] = dofb_act(DTRACEAGG_QUANTIZE, dofb_difo_arg(b, 1), 0);
	kt_clause(b, 0, DOF_SECIDX_NONE, a, 2);
	img = dofb_finish(b, &size);
	dofb_free(b);
	expect_refusal(img, size, "action 2: ntuple 0 is inconsistent");
}

static void options_must_agree(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	char msg[256];

	(void)state;
	kt_setup();
	dofb_option(b, DTRACEOPT_BUFSIZE, 4096);
	kt_clause(b, 0, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(st, b), 0);
	b = dofb_new();
	dofb_option(b, DTRACEOPT_BUFSIZE, 8192);
	kt_clause(b, 1, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable_msg(st, b, msg, sizeof(msg), NULL), -1);
	assert_string_equal(msg, "bufsize cannot change from 4096 to 8192 "
	    "once set");
	assert_false(ks_probe_is_enabled(kt_probe[1]));
	assert_int_equal(ks_getopt(st, DTRACEOPT_BUFSIZE), 4096);
	ks_close(st);
	assert_false(ks_probe_is_enabled(kt_probe[0]));
}

static void enable_while_tracing(void **state)
{
	ks_state_t *st = ks_open();
	dofb_t *b = dofb_new();
	char buf[256];

	(void)state;
	kt_setup();
	kt_clause(b, 0, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	kt_fire(0, 0, 0, 0);
	b = dofb_new();
	kt_clause(b, 1, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(st, b), 0);
	kt_fire(1, 0, 0, 0);
	assert_int_equal(kt_snap(st, 0, buf, sizeof(buf), 0, NULL), 32);
	assert_int_equal(*(uint32_t *)(buf + 16), 2);
	ks_close(st);
}

/* A destructive action loads; without the destructive option GO refuses
 * it (EACCES, as dtrace's kernel), and so does ENABLE once tracing. */
static void destructive_refused(void **state)
{
	size_t size;
	void *img = base_image(&size, DTRACEACT_RAISE, 0);
	ks_state_t *st = ks_open();
	dtrace_enable_arg_t ea;
	dofb_t *b = dofb_new();
	uint32_t cpu = 0;

	(void)state;
	kt_setup();
	memset(&ea, 0, sizeof(ea));
	ea.dtea_dof = img;
	ea.dtea_size = size;
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ENABLE, &ea), 0);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_GO, &cpu), -1);
	assert_int_equal(errno, EACCES);
	assert_string_equal(ks_errmsg(st), "Destructive actions not allowed");
	ks_close(st);
	st = ks_open();
	kt_clause(b, 0, DOF_SECIDX_NONE, NULL, 0);
	assert_int_equal(kt_enable(st, b), 0);
	kt_go(st);
	assert_int_equal(ks_ioctl(st, DTRACEIOC_ENABLE, &ea), -1);
	assert_int_equal(errno, EACCES);
	ks_close(st);
	free(img);
}

static void garbage_never_crashes(void **state)
{
	size_t size;
	char *img = base_image(&size, DTRACEACT_DIFEXPR, 0);
	unsigned seed = 12345;
	size_t i, k;
	char msg[256];

	(void)state;
	kt_setup();
	for (i = 0; i < 2000; i++) {
		char *copy = malloc(size);

		memcpy(copy, img, size);
		for (k = 0; k < 4; k++) {
			seed = seed * 1103515245 + 12345;
			copy[sizeof(dof_hdr_t) + (seed >> 8) % (size -
			    sizeof(dof_hdr_t))] ^= (char)(1 << ((seed >> 3) & 7));
		}
		(void)try_load(copy, size, msg, sizeof(msg));
	}
	free(img);
}

/* The fuzzer's seed images load (run from the top of the tree). */
static void seed_corpus_loads(void **state)
{
	const char *dir = "tests/fuzz/dof_load/corpus";
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	(void)state;
	if (d == NULL) {
		print_message("cannot open %s (%s): not run from the top of "
		    "the tree?\n", dir, strerror(errno));
		skip();
	}
	while ((de = readdir(d)) != NULL) {
		char path[512], msg[256];
		FILE *f;
		char *img = malloc(1 << 16);
		size_t size;

		if (de->d_name[0] == '.') {
			free(img);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		size = fread(img, 1, 1 << 16, f);
		fclose(f);
		if (try_load(img, size, msg, sizeof(msg)) != 0)
			fail_msg("%s: %s", path, msg);
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_image),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(bad_magic), cmocka_unit_test(bad_model),
		cmocka_unit_test(bad_encoding), cmocka_unit_test(bad_version),
		cmocka_unit_test(bad_difversion), cmocka_unit_test(bad_iregs),
		cmocka_unit_test(bad_tregs), cmocka_unit_test(bad_flags),
		cmocka_unit_test(bad_hdrsize), cmocka_unit_test(bad_secsize),
		cmocka_unit_test(bad_loadsz), cmocka_unit_test(bad_filesz),
		cmocka_unit_test(bad_secoff), cmocka_unit_test(bad_secnum),
		cmocka_unit_test(sect_out_of_bounds),
		cmocka_unit_test(sect_offset_wraps),
		cmocka_unit_test(sect_overlaps_header),
		cmocka_unit_test(sect_overlaps_table),
		cmocka_unit_test(sect_align_not_pow2),
		cmocka_unit_test(sect_misaligned),
		cmocka_unit_test(sect_align_too_small),
		cmocka_unit_test(sect_entsize),
		cmocka_unit_test(sect_size_not_multiple),
		cmocka_unit_test(sect_dif_entsize),
		cmocka_unit_test(link_out_of_range),
		cmocka_unit_test(link_wrong_type),
		cmocka_unit_test(pred_wrong_type),
		cmocka_unit_test(actions_wrong_type),
		cmocka_unit_test(difo_link_wrong_type),
		cmocka_unit_test(string_past_table),
		cmocka_unit_test(strtab_unterminated),
		cmocka_unit_test(strtab_link_wrong),
		cmocka_unit_test(unknown_action),
		cmocka_unit_test(action_needs_difo),
		cmocka_unit_test(destructive_refused),
		cmocka_unit_test(ntuple_non_agg),
		cmocka_unit_test(bad_option),
		cmocka_unit_test(unknown_option),
		cmocka_unit_test(truncated),
		cmocka_unit_test(ident_pad),
		cmocka_unit_test(ntuple_too_big),
		cmocka_unit_test(dif_refused),
		cmocka_unit_test(bad_llquantize),
		cmocka_unit_test(quantize_needs_increment),
		cmocka_unit_test(options_must_agree),
		cmocka_unit_test(enable_while_tracing),
		cmocka_unit_test(garbage_never_crashes),
		cmocka_unit_test(seed_corpus_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
