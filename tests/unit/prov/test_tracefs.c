/*
 * test_tracefs.c - format-file parsing and field access (tracefs.c).
 *
 * The format texts are written here, shaped like the kernel's, so the
 * tests need no tracefs; one test reads the live tracefs when it can.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "prov_impl.h"

static const char openat_fmt[] =
    "name: sys_enter_openat\n"
    "ID: 782\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    "\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"dfd: 0x%08lx\", ((unsigned long)(REC->dfd))\n";

static const char exec_fmt[] =
    "name: sched_process_exec\n"
    "ID: 300\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
    "\tfield:short adj;\toffset:32;\tsize:2;\tsigned:1;\n";

static void test_parse_fields(void **state)
{
	prov_tf_format_t f;
	char err[128];

	assert_int_equal(prov_tracefs_parse(openat_fmt, &f, err, sizeof(err)),
	    0);
	assert_string_equal(f.tff_event, "sys_enter_openat");
	assert_int_equal(f.tff_id, 782);
	assert_int_equal(f.tff_nfields, 9);
	assert_true(f.tff_fields[0].tff_common);
	assert_false(f.tff_fields[4].tff_common);
	assert_string_equal(f.tff_fields[6].tff_name, "filename");
	assert_string_equal(f.tff_fields[6].tff_type, "const char *");
	assert_int_equal(f.tff_fields[6].tff_offset, 24);
	assert_int_equal(f.tff_fields[6].tff_size, 8);
	assert_string_equal(f.tff_fields[0].tff_type, "unsigned short");
	assert_int_equal(prov_tracefs_field(&f, "mode"), 8);
	assert_int_equal(prov_tracefs_field(&f, "nosuch"), -1);
}

static void test_parse_arrays_and_dataloc(void **state)
{
	prov_tf_format_t f;
	char err[128];

	assert_int_equal(prov_tracefs_parse(exec_fmt, &f, err, sizeof(err)),
	    0);
	assert_int_equal(f.tff_nfields, 6);
	assert_int_equal(f.tff_fields[2].tff_dataloc, 1);
	assert_string_equal(f.tff_fields[2].tff_name, "filename");
	assert_int_equal(f.tff_fields[4].tff_array, 16);
	assert_string_equal(f.tff_fields[4].tff_name, "comm");
	assert_true(prov_tracefs_is_str(&f.tff_fields[2]));
	assert_true(prov_tracefs_is_str(&f.tff_fields[4]));
	assert_false(prov_tracefs_is_str(&f.tff_fields[3]));
}

static void test_parse_errors(void **state)
{
	prov_tf_format_t f;
	char err[128];

	assert_int_equal(prov_tracefs_parse("name: x\nformat:\n", &f, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "ID:"));
	assert_int_equal(prov_tracefs_parse("ID: 1\n\tfield:int;\toffset:0;"
	    "\tsize:4;\tsigned:1;\n", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2"));
	assert_int_equal(prov_tracefs_parse("ID: 1\n\tfield:int x;\tsize:4;\n",
	    &f, err, sizeof(err)), -1);
}

/* A raw record for exec_fmt: filename "/bin/true" at offset 40. */
static uint32_t exec_raw(uint8_t *raw)
{
	uint32_t loc = (10u << 16) | 40u;
	int32_t pid = -5;
	int16_t adj = -300;

	memset(raw, 0, 64);
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 12, &pid, 4);
	memcpy(raw + 16, "true", 5);
	memcpy(raw + 32, &adj, 2);
	memcpy(raw + 40, "/bin/true", 10);
	return 50;
}

static void test_field_values(void **state)
{
	prov_tf_format_t f;
	uint8_t raw[64];
	uint32_t len, rawlen = exec_raw(raw);
	const char *s;
	char err[128];

	assert_int_equal(prov_tracefs_parse(exec_fmt, &f, err, sizeof(err)),
	    0);
	assert_int_equal((int64_t)prov_tracefs_int(&f.tff_fields[3], raw,
	    rawlen), -5);
	assert_int_equal((int64_t)prov_tracefs_int(&f.tff_fields[5], raw,
	    rawlen), -300);
	s = prov_tracefs_str(&f.tff_fields[2], raw, rawlen, &len);
	assert_non_null(s);
	assert_int_equal(len, 9);
	assert_memory_equal(s, "/bin/true", 9);
	s = prov_tracefs_str(&f.tff_fields[4], raw, rawlen, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(s, "true", 4);
	/* out of bounds: truncated record */
	assert_null(prov_tracefs_str(&f.tff_fields[2], raw, 45, &len));
	assert_int_equal(prov_tracefs_int(&f.tff_fields[5], raw, 33), 0);
}

static void test_live_format(void **state)
{
	prov_tf_format_t f;

	if (prov_tracefs_root() == NULL) {
		print_message("tracefs not available here\n");
		skip();
	}
	assert_int_equal(prov_tracefs_format("sched", "sched_switch", &f), 0);
	assert_true(f.tff_id > 0);
	assert_true(prov_tracefs_field(&f, "prev_comm") >= 0);
	assert_true(prov_tracefs_field(&f, "next_pid") >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_parse_arrays_and_dataloc),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_field_values),
		cmocka_unit_test(test_live_format),
	};
	return cmocka_run_group_tests_name("prov_tracefs", tests, NULL, NULL);
}
