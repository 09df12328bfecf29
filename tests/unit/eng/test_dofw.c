/*
 * test_dofw.c - the DOF writer (dofw.c): the image is read back with a
 * small reader written here (header, section table, links, strings) and
 * compared with the program; then the shim loads it (ENABLE) and counts
 * the probes; options land in OPTDESC; the consumer's descriptions of
 * statements and aggregations are registered.
 */
#include "cc_test.h"

struct img {
	const char *base;
	size_t size;
	const dof_hdr_t *h;
	const dof_sec_t *s;
};

static void img_open(struct img *m, const eng_prog_t *p)
{
	m->base = eng_prog_dof(p, &m->size);
	assert_non_null(m->base);
	m->h = (const dof_hdr_t *)(const void *)m->base;
	assert_int_equal(m->h->dofh_ident[DOF_ID_MAG0], DOF_MAG_MAG0);
	assert_memory_equal(&m->h->dofh_ident[DOF_ID_MAG1], "DOF", 3);
	assert_int_equal(m->h->dofh_ident[DOF_ID_MODEL], DOF_MODEL_LP64);
	assert_int_equal(m->h->dofh_ident[DOF_ID_DIFIREG], DIF_DIR_NREGS);
	assert_int_equal(m->h->dofh_hdrsize, sizeof(dof_hdr_t));
	assert_int_equal(m->h->dofh_filesz, m->size);
	m->s = (const dof_sec_t *)(const void *)(m->base + m->h->dofh_secoff);
	for (uint32_t i = 0; i < m->h->dofh_secnum; i++) {
		assert_true(m->s[i].dofs_offset + m->s[i].dofs_size <= m->size);
		assert_int_equal(m->s[i].dofs_offset % m->s[i].dofs_align, 0);
	}
}

static const void *sec(const struct img *m, dof_secidx_t i, uint32_t type)
{
	assert_true(i < m->h->dofh_secnum);
	assert_int_equal(m->s[i].dofs_type, type);
	return m->base + m->s[i].dofs_offset;
}

static int count(const struct img *m, uint32_t type)
{
	int n = 0;

	for (uint32_t i = 0; i < m->h->dofh_secnum; i++)
		n += m->s[i].dofs_type == type;
	return n;
}

static const char *strat(const struct img *m, dof_secidx_t st, uint32_t off)
{
	const char *t = sec(m, st, DOF_SECT_STRTAB);

	assert_true(off < m->s[st].dofs_size);
	return t + off;
}

static void test_round_trip(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN, END /arg0 == 0/ { printf(\"%d %s\\n\", "
	    "1, \"x\"); @c[probename] = count(); }");
	struct img m;
	const dof_ecbdesc_t *e = NULL;
	const dof_actdesc_t *a;
	const dof_probedesc_t *pd;
	const dof_difohdr_t *dh;

	(void)state;
	img_open(&m, p);
	assert_int_equal(count(&m, DOF_SECT_ECBDESC), 2);
	assert_int_equal(count(&m, DOF_SECT_ACTDESC), 1);
	for (uint32_t i = 0; i < m.h->dofh_secnum; i++)
		if (m.s[i].dofs_type == DOF_SECT_ECBDESC && e == NULL)
			e = (const dof_ecbdesc_t *)(const void *)(m.base +
			    m.s[i].dofs_offset);
	assert_int_equal(e->dofe_uarg, ct_stmt(p, 0)->s_id);
	pd = sec(&m, e->dofe_probes, DOF_SECT_PROBEDESC);
	assert_string_equal(strat(&m, pd->dofp_strtab, pd->dofp_name), "BEGIN");
	dh = sec(&m, e->dofe_pred, DOF_SECT_DIFOHDR);
	assert_int_equal(m.s[dh->dofd_links[0]].dofs_type, DOF_SECT_DIF);
	a = sec(&m, e->dofe_actions, DOF_SECT_ACTDESC);
	assert_int_equal(m.s[e->dofe_actions].dofs_size, 5 * sizeof(*a));
	assert_int_equal(a[0].dofa_kind, DTRACEACT_PRINTF);
	assert_int_equal(a[0].dofa_uarg, 2);
	assert_int_equal(a[0].dofa_difo, DOF_SECIDX_NONE);
	assert_string_equal(strat(&m, a[0].dofa_strtab, (uint32_t)a[0].dofa_arg),
	    "%d %s\n");
	assert_int_equal(a[1].dofa_kind, DTRACEACT_DIFEXPR);
	assert_int_equal(a[3].dofa_kind, DTRACEACT_DIFEXPR);	/* key */
	assert_int_equal(a[4].dofa_kind, DTRACEAGG_COUNT);
	assert_int_equal(a[4].dofa_ntuple, 1);
	assert_int_equal(a[4].dofa_difo, DOF_SECIDX_NONE);
	assert_int_equal(a[4].dofa_uarg, eng_cc_agg(&(struct eng_pcb){
	    .pc_cc = h->eh_cc }, "c", 0)->i_id);
	eng_prog_free(p);
	eng_close(h);
}

static void test_quantize_gets_an_increment(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { @q[1, 2] = lquantize(arg0, 0, 100, "
	    "10); @r = quantize(arg0, 5); }");
	const struct eng_stmt *s = ct_stmt(p, 0);

	(void)state;
	assert_int_equal(s->s_nacts, 6);
	assert_int_equal(ct_const(s->s_acts[2].a_difo), 1);	/* increment */
	assert_int_equal(s->s_acts[3].a_kind, DTRACEAGG_LQUANTIZE);
	assert_int_equal(s->s_acts[3].a_ntuple, 3);
	assert_true(s->s_acts[3].a_arg == DTRACE_LQUANTIZE_ENCODE(10, 10, 0));
	assert_int_equal(ct_const(s->s_acts[4].a_difo), 5);
	assert_int_equal(s->s_acts[5].a_kind, DTRACEAGG_QUANTIZE);
	assert_int_equal(s->s_acts[5].a_ntuple, 1);
	eng_prog_free(p);
	eng_close(h);
}

static void test_options_go_to_optdesc(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p;
	struct img m;
	const dof_optdesc_t *o = NULL;
	int found = 0;

	(void)state;
	assert_int_equal(eng_setopt(h, "bufsize", "1m"), 0);
	p = ct_ok(h, "#pragma D option nspec=3\nBEGIN { }");
	img_open(&m, p);
	for (uint32_t i = 0; i < m.h->dofh_secnum; i++) {
		if (m.s[i].dofs_type != DOF_SECT_OPTDESC)
			continue;
		o = (const dof_optdesc_t *)(const void *)(m.base +
		    m.s[i].dofs_offset);
		for (size_t j = 0; j < m.s[i].dofs_size / sizeof(*o); j++) {
			if (o[j].dofo_option == DTRACEOPT_BUFSIZE)
				found += o[j].dofo_value == 1 << 20;
			if (o[j].dofo_option == DTRACEOPT_NSPEC)
				found += o[j].dofo_value == 3;
		}
	}
	assert_int_equal(found, 2);
	eng_prog_free(p);
	eng_close(h);
}

static void test_shim_loads_and_matches(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN, END { trace(1); @[probename] = "
	    "avg(arg0); } dtrace::: /0/ { x = 2; }");
	unsigned n = 0;

	(void)state;
	assert_int_equal(eng_prog_nprobes(p), 5);
	if (eng_prog_exec(h, p, &n) != 0)
		fail_msg("ENABLE refused: %s", eng_errmsg(h));
	assert_int_equal(n, 5);
	eng_prog_free(p);
	eng_close(h);
}

static void test_consumer_descriptions(void **state)
{
	eng_hdl_t *h = ct_open();
	eng_prog_t *p = ct_ok(h, "BEGIN { trace(\"s\"); trace((short)-1); "
	    "printf(\"%d\", 2); @agg[\"k\", 1] = llquantize(3, 10, 0, 6, 20); }");
	const eng_cc_stmtinfo_t *si = eng_cc_stmtinfo(h, ct_stmt(p, 0)->s_id);
	const eng_cc_agginfo_t *ai;

	(void)state;
	assert_non_null(si);
	assert_int_equal(si->esi_acts[0].eca_string, 1);
	assert_int_equal(si->esi_acts[1].eca_size, 2);
	assert_int_equal(si->esi_acts[1].eca_signed, 1);
	assert_string_equal(si->esi_acts[2].eca_fmt, "%d");
	ai = eng_cc_agginfo(h, 1);
	assert_non_null(ai);
	assert_string_equal(ai->eai_name, "agg");
	assert_string_equal(eng_cc_aggname(h, 1), "agg");
	assert_int_equal(ai->eai_func, DTRACEAGG_LLQUANTIZE);
	assert_true(ai->eai_arg == DTRACE_LLQUANTIZE_ENCODE(10, 0, 6, 20));
	assert_int_equal(ai->eai_nkeys, 2);
	assert_int_equal(ai->eai_keystring[0], 1);
	assert_int_equal(ai->eai_keystring[1], 0);
	assert_null(eng_cc_aggname(h, 99));
	eng_prog_free(p);
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_quantize_gets_an_increment),
		cmocka_unit_test(test_options_go_to_optdesc),
		cmocka_unit_test(test_shim_loads_and_matches),
		cmocka_unit_test(test_consumer_descriptions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
