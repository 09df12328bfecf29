/*
 * test_usdt_notes.c - the usdt provider's readers: operand specifiers
 * (sizes, signedness, registers of every width, immediates, memory with
 * base, index and scale, symbols relative to %rip, refusals) and their
 * values on a made-up hit; the .note.stapsdt reader on this machine's
 * python3 and libstdc++ (when present), on a file without notes, and on
 * files that are not ELF or are cut short.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "usdt_impl.h"

static int lookup(void *arg, const char *name, uint64_t *vaddr)
{
	if (strcmp(name, "counter") != 0)
		return -1;
	*vaddr = 0x4000;
	return 0;
}

static void operands(void **state)
{
	usdt_arg_t a[USDT_MAXARGS];
	char err[128];

	assert_int_equal(usdt_args_parse("-4@%eax 8@%rbp 8@-16(%rbp) 8@$5 "
	    "1@%ah 2@%r9w -8@(%rsp,%rcx,4) 4@counter+8(%rip)", a, USDT_MAXARGS,
	    lookup, NULL, err, sizeof(err)), 8);
	assert_int_equal(a[0].ua_kind, USDT_ARG_REG);
	assert_int_equal(a[0].ua_size, 4);
	assert_true(a[0].ua_signed);
	assert_int_equal(a[0].ua_base, PROV_UREG_RAX);
	assert_int_equal(a[1].ua_base, PROV_UREG_RBP);
	assert_false(a[1].ua_signed);
	assert_int_equal(a[2].ua_kind, USDT_ARG_MEM);
	assert_int_equal(a[2].ua_disp, -16);
	assert_int_equal(a[3].ua_kind, USDT_ARG_IMM);
	assert_int_equal(a[3].ua_disp, 5);
	assert_int_equal(a[4].ua_shift, 8);
	assert_int_equal(a[5].ua_base, PROV_UREG_R9);
	assert_int_equal(a[6].ua_index, PROV_UREG_RCX);
	assert_int_equal(a[6].ua_scale, 4);
	assert_int_equal(a[7].ua_kind, USDT_ARG_ABS);
	assert_int_equal(a[7].ua_disp, 0x4008);
	/* no size: 8 bytes */
	assert_int_equal(usdt_args_parse("%rdi", a, 1, NULL, NULL, err,
	    sizeof(err)), 1);
	assert_int_equal(a[0].ua_size, 8);
	assert_int_equal(usdt_args_parse("", a, 1, NULL, NULL, err,
	    sizeof(err)), 0);
}

static void refusals(void **state)
{
	static const char *const bad[] = {
		"3@%eax", "4@%xyz", "8@8(%rip)", "8@nosuch(%rip)",
		"8@(%rax,%rbx,3)", "8@-8(%rax", "4@%eax junk@", "x@%eax",
		"8@counter(%rax)", "8@$abc", "%rip",
	};
	usdt_arg_t a[USDT_MAXARGS];
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (usdt_args_parse(bad[i], a, USDT_MAXARGS, lookup, NULL, err,
		    sizeof(err)) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(usdt_args_parse("%rax %rax %rax", a, 2, NULL, NULL,
	    err, sizeof(err)), -1);
}

static void values(void **state)
{
	/* perf's order: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 */
	uint64_t regs[20] = { 0xfffffffffffffffeull, 0, 3, 0, 0, 0, 0, 0 };
	uint8_t stack[64];
	prov_perf_sample_t s;
	usdt_arg_t a[4];
	char err[128];
	int32_t v = -7;

	memset(&s, 0, sizeof(s));
	memset(stack, 0, sizeof(stack));
	memcpy(stack + 16 + 3 * 4, &v, 4);
	regs[7] = 0x7fff0000;			/* sp */
	s.pps_uregs = regs;
	s.pps_nuregs = 20;
	s.pps_ustk = stack;
	s.pps_ustklen = sizeof(stack);
	s.pps_pid = (int32_t)getpid();
	assert_int_equal(usdt_args_parse("-4@%eax 4@%eax -4@16(%rsp,%rcx,4) "
	    "-1@$-3", a, 4, NULL, NULL, err, sizeof(err)), 4);
	assert_int_equal((int64_t)usdt_arg_value(&a[0], &s, 0), -2);
	assert_int_equal(usdt_arg_value(&a[1], &s, 0), 0xfffffffeull);
	assert_int_equal((int64_t)usdt_arg_value(&a[2], &s, 0), -7);
	assert_int_equal((int64_t)usdt_arg_value(&a[3], &s, 0), -3);
	assert_string_equal(usdt_arg_type(&a[0]), "int32_t");
	assert_string_equal(usdt_arg_type(&a[1]), "uint32_t");
}

/* python3's notes, read from the installed binary. */
static void python_notes(void **state)
{
	char path[4096], err[256];
	usdt_notes_t n;
	ssize_t len = readlink("/usr/bin/python3", path, sizeof(path) - 1);
	int found = 0;

	if (len <= 0) {
		print_message("no /usr/bin/python3 here\n");
		skip();
	}
	path[len] = '\0';
	if (usdt_notes_file("/usr/bin/python3", &n, err, sizeof(err)) != 0)
		fail_msg("python3: %s", err);
	for (int i = 0; i < n.un_n; i++) {
		if (strcmp(n.un_notes[i].un_name, "gc__start") != 0)
			continue;
		found = 1;
		assert_string_equal(n.un_notes[i].un_prov, "python");
		assert_int_equal(n.un_notes[i].un_nargs, 1);
		assert_true(n.un_notes[i].un_semaoff != 0);
		assert_true(n.un_notes[i].un_off != 0);
	}
	usdt_notes_free(&n);
	if (!found) {
		print_message("python3 (%s) has no gc__start note\n", path);
		skip();
	}
}

static void not_elf(void **state)
{
	static const char junk[] = "#!/bin/sh\necho not an ELF file\n";
	char err[256] = "";
	usdt_notes_t n;
	uint8_t head[64];
	FILE *fp;

	assert_int_equal(usdt_notes_read(junk, sizeof(junk), &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "not an ELF file");
	/* a real ELF header cut short */
	fp = fopen("/proc/self/exe", "rb");
	assert_non_null(fp);
	assert_int_equal(fread(head, 1, sizeof(head), fp), sizeof(head));
	fclose(fp);
	err[0] = '\0';
	assert_int_equal(usdt_notes_read(head, 20, &n, err, sizeof(err)), -1);
	assert_true(err[0] != '\0');
	assert_int_equal(usdt_notes_file("/nonexistent", &n, err, sizeof(err)),
	    -1);
}

/* This test binary has no stapsdt notes: zero notes, no error. */
static void no_notes(void **state)
{
	char err[256];
	usdt_notes_t n;

	assert_int_equal(usdt_notes_file("/proc/self/exe", &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n.un_n, 0);
	usdt_notes_free(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(operands),
		cmocka_unit_test(refusals),
		cmocka_unit_test(values),
		cmocka_unit_test(python_notes),
		cmocka_unit_test(not_elf),
		cmocka_unit_test(no_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
