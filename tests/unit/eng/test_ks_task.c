/*
 * test_ks_task.c - the D library's struct ks_task (engine/dlib.c) has the
 * layout of the ks_task_t providers fill (include/ks_provider.h): the
 * translators behind lwpsinfo_t * and psinfo_t * arguments read one
 * through the other, so every member must sit at the same offset with
 * the same size (the D struct ends at its last member, unpadded).  Also: the translators from it and cpuinfo_t exist.
 */
#include "cc_test.h"
#include "ks_provider.h"

static struct eng_type *ks_task_type(eng_hdl_t *h, struct ct_pcb *c)
{
	/* the first compile loads the D library into the handle */
	eng_prog_free(ct_ok(h, "BEGIN { exit(0); }"));
	ct_pcb_init(c, h, "");
	return eng_type_parse_name(&c->pc, "struct ks_task");
}

static void check_member(struct eng_type *t, const char *name, size_t off,
    size_t size)
{
	struct eng_member *m = eng_type_member(t, name);

	if (m == NULL)
		fail_msg("struct ks_task has no member %s in D", name);
	if (m->m_off != off || m->m_type->t_size != size)
		fail_msg("%s: D offset %zu size %zu, C offset %zu size %zu",
		    name, (size_t)m->m_off, (size_t)m->m_type->t_size, off,
		    size);
}

#define MEMBER(t, f) check_member(t, #f, offsetof(ks_task_t, f), \
	sizeof(((ks_task_t *)0)->f))

static void test_layout_matches_the_c_struct(void **state)
{
	eng_hdl_t *h = ct_open();
	struct ct_pcb c;
	struct eng_type *t;

	(void)state;
	t = ks_task_type(h, &c);
	assert_non_null(t);
	/* D structs are not padded at the end (dtrace's D layout) */
	assert_int_equal(t->t_size, offsetof(ks_task_t, kt_envp) +
	    sizeof(((ks_task_t *)0)->kt_envp));
	MEMBER(t, kt_tid);
	MEMBER(t, kt_pid);
	MEMBER(t, kt_ppid);
	MEMBER(t, kt_uid);
	MEMBER(t, kt_gid);
	MEMBER(t, kt_argc);
	MEMBER(t, kt_pri);
	MEMBER(t, kt_cpu);
	MEMBER(t, kt_sname);
	MEMBER(t, kt_comm);
	MEMBER(t, kt_psargs);
	MEMBER(t, kt_pgid);
	MEMBER(t, kt_sid);
	MEMBER(t, kt_ttydev);
	MEMBER(t, kt_argv);
	MEMBER(t, kt_envp);
	/* proc:::signal-handle's siginfo_t: three ints (prov_proc.c) */
	t = eng_type_parse_name(&c.pc, "siginfo_t");
	assert_int_equal(t->t_size, 12);
	assert_int_equal(eng_type_member(t, "si_signo")->m_off, 0);
	assert_int_equal(eng_type_member(t, "si_code")->m_off, 4);
	assert_int_equal(eng_type_member(t, "si_errno")->m_off, 8);
	ct_pcb_fini(&c);
	eng_close(h);
}

static void test_translators_from_a_task_and_a_cpu(void **state)
{
	eng_hdl_t *h = ct_open();

	(void)state;
	eng_prog_free(ct_ok(h, "BEGIN { this->t = (struct ks_task *)0; "
	    "trace(xlate<psinfo_t *>(this->t)->pr_pid); "
	    "trace(xlate<lwpsinfo_t *>(this->t)->pr_lwpid); "
	    "trace(xlate<cpuinfo_t *>(cpu)->cpu_chip); "
	    "trace(curcpu->cpu_id); trace(curcpu->cpu_lgrp); }"));
	ct_err(h, "BEGIN { trace(xlate<cpuinfo_t *>(cpu)->cpu_info); }",
	    "D_XLATE_NOCONV");
	eng_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_matches_the_c_struct),
		cmocka_unit_test(test_translators_from_a_task_and_a_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
