/*
 * test_dif_subr.c - DIF subroutines (spec ch. 10) with their edge cases:
 * string work (substr, index/rindex, strtok, basename, dirname, cleanpath,
 * lltostr, strtoll, json ...), memory (alloca, bcopy, copyin* of this
 * process through process_vm_readv, copyout*), formatting (inet_*,
 * uuidstr), byte order, devices, speculation and progenyof callbacks.
 */
#include <sys/mman.h>
#include "test_dif_util.h"

typedef struct arg {
	const char *s;		/* string argument (PUSHTR), or NULL */
	uint64_t v;		/* integer argument (PUSHTV) */
} arg_t;

#define I(x)	{ NULL, (uint64_t)(x) }
#define S(x)	{ (x), 0 }

/* subr(args...) in f; the raw result. */
static uint64_t call(tfire_t *f, unsigned subr, const arg_t *a, int n)
{
	tdif_t t;

	td_init(&t);
	for (int i = 0; i < n; i++) {
		if (a[i].s != NULL) {
			td_sets(&t, 1, a[i].s);
			td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_STRING, 0, 1));
		} else {
			td_setx(&t, 1, a[i].v);
			td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV,
			    DIF_TYPE_CTF, 0, 1));
		}
	}
	td_emit(&t, DIF_INSTR_CALL(subr, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	return td_run(&t, f);
}

/* subr(args...) as a string ("(null)" for 0), copied out before the
 * DIF object (whose string table results may point into) goes away. */
static const char *calls(tfire_t *f, unsigned subr, const arg_t *a, int n)
{
	static char buf[1024];
	tdif_t t;
	uint64_t v;

	td_init(&t);
	for (int i = 0; i < n; i++) {
		if (a[i].s != NULL) {
			td_sets(&t, 1, a[i].s);
			td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR,
			    DIF_TYPE_STRING, 0, 1));
		} else {
			td_setx(&t, 1, a[i].v);
			td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV,
			    DIF_TYPE_CTF, 0, 1));
		}
	}
	td_emit(&t, DIF_INSTR_CALL(subr, 2));
	td_emit(&t, DIF_INSTR_RET(2));
	v = td_run(&t, f);
	snprintf(buf, sizeof (buf), "%s", v ? (const char *)(uintptr_t)v :
	    "(null)");
	return buf;
}

#define CALLS(f, subr, ...) \
	calls(f, subr, (const arg_t[]){ __VA_ARGS__ }, \
	    (int)(sizeof ((const arg_t[]){ __VA_ARGS__ }) / sizeof (arg_t)))
#define CALL(f, subr, ...) \
	call(f, subr, (const arg_t[]){ __VA_ARGS__ }, \
	    (int)(sizeof ((const arg_t[]){ __VA_ARGS__ }) / sizeof (arg_t)))

/* Put n bytes in f's scratch (readable) and return their address. */
static uint64_t data(tfire_t *f, const void *p, size_t n)
{
	uint64_t off = (f->ms.kms_scratch_used + 7) & ~7ull;

	memcpy(f->scratch + off, p, n);
	f->ms.kms_scratch_used = off + n;
	return (uint64_t)(uintptr_t)(f->scratch + off);
}

static void test_ks_dif_subr_strlen_strjoin(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_strlen, S("hello")), 5);
	assert_int_equal(CALL(&f, DIF_SUBR_strlen, S("")), 0);
	assert_string_equal(CALLS(&f, DIF_SUBR_strjoin, S("foo"), S("bar")),
	    "foobar");
	assert_string_equal(CALLS(&f, DIF_SUBR_strjoin, S(""), S("")), "");
	tf_fini(&f);
	/* strsize counts the NUL (Oracle's tst.strjoin-capped-size) */
	tf_init_sized(&f, 4096, 11);
	assert_string_equal(CALLS(&f, DIF_SUBR_strjoin, S("dtrace"),
	    S("BEGIN")), "dtraceBEGI");
	assert_string_equal(CALLS(&f, DIF_SUBR_toupper, S("abcdefghijkl")),
	    "ABCDEFGHIJ");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(INT64_MIN)),
	    "-922337203");
	tf_fini(&f);
	/* reading a string stops at strsize bytes */
	tf_init_sized(&f, 4096, 4);
	assert_int_equal(CALL(&f, DIF_SUBR_strlen, S("abcdefg")), 4);
	tf_fini(&f);
}

/* substr() of "foobarbazbop" agrees with Perl's substr, as in DTrace's
 * test suite (tst.substr.d). */
static void test_ks_dif_subr_substr(void **state)
{
	static const struct { int64_t i, len; int has_len; const char *want; }
	c[] = {
		{ 3, 0, 0, "barbazbop" }, { 300, 0, 0, "" },
		{ -10, 0, 0, "obarbazbop" }, { 0, 0, 0, "foobarbazbop" },
		{ 1, 0, 0, "oobarbazbop" }, { 11, 0, 0, "p" }, { 12, 0, 0, "" },
		{ 13, 0, 0, "" }, { 8, 20, 1, "zbop" }, { 4, 4, 1, "arba" },
		{ 5, 8, 1, "rbazbop" }, { 5, 9, 1, "rbazbop" },
		{ 400, 20, 1, "" }, { 400, 0, 1, "" }, { 400, -1, 1, "" },
		{ 3, 0, 1, "" }, { 3, -1, 1, "barbazbo" }, { 3, -4, 1, "barba" },
		{ 3, -20, 1, "" }, { -10, -5, 1, "obarb" },
		{ 0, 400, 1, "foobarbazbop" }, { -1, 400, 1, "p" },
		{ -1, 0, 1, "" }, { -1, -1, 1, "" },
		{ -24, 24, 1, "foobarbazbop" }, { -24, 12, 1, "" },
		{ -24, 13, 1, "f" }, { -12, 12, 1, "foobarbazbop" },
		{ -12, 11, 1, "foobarbazbo" },
	};
	tfire_t f;

	tf_init_sized(&f, 4096, 32);
	for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++) {
		const char *got = c[k].has_len ?
		    CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"), I(c[k].i),
		    I(c[k].len)) : CALLS(&f, DIF_SUBR_substr,
		    S("foobarbazbop"), I(c[k].i));

		if (strcmp(got, c[k].want) != 0)
			fail_msg("substr(\"foobarbazbop\", %lld, %lld) = \"%s\", "
			    "want \"%s\"", (long long)c[k].i,
			    (long long)c[k].len, got, c[k].want);
	}
	/* extreme arguments do not overflow */
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"),
	    I(INT64_MIN), I(INT64_MIN)), "");
	/* index -2^63 + 12 and length 2^63 - 1 end at character 11 */
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"),
	    I(INT64_MIN), I(INT64_MAX)), "foobarbazbo");
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"),
	    I(INT64_MAX), I(INT64_MAX)), "");
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"),
	    I(2), I(INT64_MIN)), "");
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("foobarbazbop"),
	    I(-3), I(INT64_MAX)), "bop");
	assert_string_equal(CALLS(&f, DIF_SUBR_substr, S("CRAIG: Positioned "
	    "them, I don't know... I'm fairly wide guy."), I(100), I(10)), "");
	tf_fini(&f);
}

static void test_ks_dif_subr_index_rindex(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("l")), 2);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("l")), 3);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("lo")), 3);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("z")),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("z")),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("l"), I(3)), 3);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("l"), I(-4)),
	    2);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("l"), I(9)),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("l"), I(2)),
	    2);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("l"), I(1)),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("l"), I(-1)),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S("")), 0);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("")), 5);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("ab"), S("abc")),
	    (uint64_t)-1);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S(""), I(9)), 5);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("hello"), S(""), I(2)), 2);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S(""), I(-3)),
	    0);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S(""), I(3)), 3);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("hello"), S("lo"), I(9)),
	    3);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("foofoofoo"), S("foo")), 0);
	assert_int_equal(CALL(&f, DIF_SUBR_rindex, S("foofoofoo"), S("foo")),
	    6);
	assert_int_equal(CALL(&f, DIF_SUBR_index, S("foobarbaz"), S("barbaz")),
	    3);
	tf_fini(&f);
}

static void test_ks_dif_subr_strchr_strstr(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_string_equal(CALLS(&f, DIF_SUBR_strchr, S("hello world"),
	    I('o')), "o world");
	assert_string_equal(CALLS(&f, DIF_SUBR_strrchr, S("hello world"),
	    I('o')), "orld");
	assert_string_equal(CALLS(&f, DIF_SUBR_strchr, S("hello"), I('z')),
	    "(null)");
	assert_string_equal(CALLS(&f, DIF_SUBR_strchr, S("hello"), I(0)), "");
	assert_string_equal(CALLS(&f, DIF_SUBR_strstr, S("hello world"),
	    S("o w")), "o world");
	assert_string_equal(CALLS(&f, DIF_SUBR_strstr, S("hello"), S("xyz")),
	    "(null)");
	assert_string_equal(CALLS(&f, DIF_SUBR_strstr, S("hello"), S("")),
	    "hello");
	tf_fini(&f);
}

static void test_ks_dif_subr_strtok(void **state)
{
	tfire_t f;

	tf_init(&f);
	/* nothing saved yet: invalid address (DTrace's tst.strtok_null.d) */
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, S(",,a,b,,c,"), S(",")),
	    "a");
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")), "b");
	/* another thread has no saved string */
	f.ctx.kpc_tid++;
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	f.ctx.kpc_tid--;
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")), "c");
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, 0);
	/* ... and then the string is gone */
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(",")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	/* delimiters may change between calls; the next call starts at the
	 * delimiter that ended the last token, kept if it is not one of
	 * the new delimiters (DTrace's tst.strtok2.d) */
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, S("a b;c d"), S(";")),
	    "a b");
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(" ")), ";c");
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, I(0), S(" ")), "d");
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, S(""), S(",")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, 0);
	assert_string_equal(CALLS(&f, DIF_SUBR_strtok, S("abc"), S("")),
	    "abc");
	tf_fini(&f);
}

static void test_ks_dif_subr_paths(void **state)
{
	static const char *const c[][4] = {
		/* path, basename, dirname, cleanpath */
		{ "/usr/bin/ls", "ls", "/usr/bin", "/usr/bin/ls" },
		{ "/usr/bin/", "bin", "/usr", "/usr/bin/" },
		{ "/", "/", "/", "/" },
		{ "//", "/", "/", "/" },
		{ "ls", "ls", ".", "ls" },
		{ "/ls", "ls", "/", "/ls" },
		{ "a//b", "b", "a", "a/b" },
		{ "", ".", ".", "" },
		{ ".", ".", ".", "." },
		{ "/foo//bar/./baz/../qux", "qux", "/foo//bar/./baz/..",
		    "/foo/bar/qux" },
		{ "/../a", "a", "/..", "/a" },
		{ "a/../../b", "b", "a/../..", "../b" },
		{ "a/..", "..", "a", "." },
	};
	tfire_t f;

	tf_init(&f);
	for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++) {
		const unsigned subr[3] = { DIF_SUBR_basename,
		    DIF_SUBR_dirname, DIF_SUBR_cleanpath };

		for (int j = 0; j < 3; j++) {
			const char *got = CALLS(&f, subr[j], S(c[k][0]));

			if (strcmp(got, c[k][j + 1]) != 0)
				fail_msg("subr %u(\"%s\") = \"%s\", want "
				    "\"%s\"", subr[j], c[k][0], got,
				    c[k][j + 1]);
		}
	}
	tf_fini(&f);
}

static void test_ks_dif_subr_lltostr(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(0)), "0");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(-123)), "-123");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(INT64_MIN)),
	    "-9223372036854775808");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(255), I(16)),
	    "0xff");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(0), I(16)), "0x0");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(5), I(2)), "101");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(8), I(8)), "010");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(35), I(36)), "z");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(-1), I(16)),
	    "0xffffffffffffffff");
	assert_string_equal(CALLS(&f, DIF_SUBR_lltostr, I(5), I(1)), "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	tf_fini(&f);
}

static void test_ks_dif_subr_strtoll(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("123")), 123);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("-42")), (uint64_t)-42);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("  +12abc")), 12);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("0x1f"), I(16)), 31);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("FF"), I(16)), 255);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("777"), I(8)), 511);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("zz"), I(36)), 1295);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("abc")), 0);
	assert_int_equal(CALL(&f, DIF_SUBR_strtoll, S("1"), I(37)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	tf_fini(&f);
}

static void test_ks_dif_subr_case(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_string_equal(CALLS(&f, DIF_SUBR_toupper, S("Hello, World! 9")),
	    "HELLO, WORLD! 9");
	assert_string_equal(CALLS(&f, DIF_SUBR_tolower, S("Hello, World! 9")),
	    "hello, world! 9");
	tf_fini(&f);
}

static void test_ks_dif_subr_json(void **state)
{
	static const char doc[] = "{\"a\": {\"b\": [10, {\"c\": \"x\\\"y\"}]},"
	    " \"n\": -1.5e3, \"t\": true, \"z\": null, \"s\": \"hi\\n\","
	    " \"e\": {}, \"k.dot\": 1}";
	static const char *const c[][2] = {
		{ "a.b[0]", "10" }, { "a.b[1].c", "x\"y" }, { "n", "-1.5e3" },
		{ "t", "true" }, { "z", "null" }, { "s", "hi\n" },
		{ "a.b", "[10, {\"c\": \"x\\\"y\"}]" }, { "e", "{}" },
		{ "missing", "(null)" }, { "a.b[5]", "(null)" },
		{ "a.x", "(null)" }, { "a[0]", "(null)" }, { "n.x", "(null)" },
		{ "a.b[", "(null)" }, { "[0]", "(null)" }, { "a..b", "(null)" },
	};
	tfire_t f;

	tf_init_sized(&f, 4096, 512);
	for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++) {
		const char *got = CALLS(&f, DIF_SUBR_json, S(doc), S(c[k][0]));

		if (strcmp(got, c[k][1]) != 0)
			fail_msg("json(doc, \"%s\") = \"%s\", want \"%s\"",
			    c[k][0], got, c[k][1]);
	}
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("[1]"), S("")), "[1]");
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("[1, [2, 3]]"),
	    S("[1][1]")), "3");
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("{\"a\": "), S("a")),
	    "(null)");
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("{\"a\": [1, 2"),
	    S("a")), "(null)");
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("{\"a\": \"abc"),
	    S("a")), "(null)");
	assert_string_equal(CALLS(&f, DIF_SUBR_json, S("{\"a\": 1}"), S("a")),
	    "1");
	/* \uXXXX escapes become UTF-8 */
	assert_string_equal(CALLS(&f, DIF_SUBR_json,
	    S("{\"u\": \"A\\u0042\\u00e9\\u20ac\\u12\"}"), S("u")),
	    "AB\xc3\xa9\xe2\x82\xacu12");
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
	/* strsize 20: the document is read up to 20 bytes, the result holds
	 * at most 19; a document cut by strsize is malformed */
	tf_init_sized(&f, 4096, 20);
	assert_string_equal(CALLS(&f, DIF_SUBR_json,
	    S("12345678901234567890"), S("")), "1234567890123456789");
	assert_string_equal(CALLS(&f, DIF_SUBR_json,
	    S("{\"s\":\"abcdefghijklmnop\"}"), S("s")), "(null)");
	tf_fini(&f);
}

static void test_ks_dif_subr_byte_order(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_htons, I(0x1234)), 0x3412);
	assert_int_equal(CALL(&f, DIF_SUBR_ntohs, I(0x3412)), 0x1234);
	assert_int_equal(CALL(&f, DIF_SUBR_htonl, I(0x12345678)), 0x78563412);
	assert_int_equal(CALL(&f, DIF_SUBR_ntohl, I(0x78563412)), 0x12345678);
	assert_int_equal(CALL(&f, DIF_SUBR_htonll, I(0x0102030405060708ull)),
	    0x0807060504030201ull);
	assert_int_equal(CALL(&f, DIF_SUBR_ntohll, I(0x0807060504030201ull)),
	    0x0102030405060708ull);
	tf_fini(&f);
}

static void test_ks_dif_subr_devices(void **state)
{
	tfire_t f;

	/* the kernel's dev_t: major << 20 | minor */
	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_getmajor, I(8 << 20 | 1)), 8);
	assert_int_equal(CALL(&f, DIF_SUBR_getminor, I(8 << 20 | 1)), 1);
	assert_int_equal(CALL(&f, DIF_SUBR_getmajor, I(259u << 20 | 70000)),
	    259);
	assert_int_equal(CALL(&f, DIF_SUBR_getminor, I(259u << 20 | 70000)),
	    70000);
	assert_int_equal(CALL(&f, DIF_SUBR_getmajor, I(0xfffu << 20)), 0xfff);
	assert_int_equal(CALL(&f, DIF_SUBR_getminor, I(0xfffff)), 0xfffff);
	tf_fini(&f);
}

static void test_ks_dif_subr_inet(void **state)
{
	static const uint8_t v4[4] = { 192, 168, 1, 2 };
	static const uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 1 };
	static const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff, 10, 0, 0, 1 };
	tfire_t f;
	uint64_t a4, a6, am;

	tf_init(&f);
	a4 = data(&f, v4, 4);
	a6 = data(&f, v6, 16);
	am = data(&f, mapped, 16);
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntoa, I(a4)),
	    "192.168.1.2");
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntop, I(2), I(a4)),
	    "192.168.1.2");
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntoa6, I(a6)), "fe80::1");
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntop, I(10), I(a6)),
	    "fe80::1");
	/* DTrace prints IPv4-mapped and -compatible addresses as IPv4 */
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntop, I(26), I(am)),
	    "10.0.0.1");
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntop, I(99), I(a4)),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntoa, I(16)), "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
}

/* The addresses of DTrace's tst.inet_ntoa6.d and what it prints. */
static void test_ks_dif_subr_inet_ntoa6_like_dtrace(void **state)
{
	static const struct { uint8_t a[16]; const char *want; } c[] = {
		{ { 0xfe, 0x80, [8] = 0x02, 0x14, 0x4f, 0xff, 0xfe, 0x0b, 0x76,
		    0xc8 }, "fe80::214:4fff:fe0b:76c8" },
		{ { 0x10, 0x80, [10] = 0x08, 0x08, 0, 0x0c, 0x41, 0x7a },
		    "1080::808:c:417a" },
		{ { [15] = 1 }, "::1" },
		{ { 0 }, "::" },
		{ { [12] = 0x7f, [15] = 1 }, "127.0.0.1" },
		{ { [10] = 0xff, 0xff, 0x7f, [15] = 1 }, "127.0.0.1" },
		{ { [10] = 0xff, 0xfe, 0x7f, [15] = 1 }, "::fffe:7f00:1" },
		{ { 0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0x02, 0x14,
		    0x4f, 0xff, 0xfe, 0x0b, 0, 0 },
		    "fe12:3456:789a:bcde:214:4fff:fe0b:0" },
	};
	tfire_t f;

	tf_init(&f);
	for (size_t k = 0; k < sizeof (c) / sizeof (c[0]); k++) {
		uint64_t a = data(&f, c[k].a, 16);

		assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntoa6, I(a)),
		    c[k].want);
	}
	tf_fini(&f);
	/* strsize 10: cut to 9 characters */
	tf_init_sized(&f, 4096, 10);
	assert_string_equal(CALLS(&f, DIF_SUBR_inet_ntoa6,
	    I(data(&f, c[0].a, 16))), "fe80::214");
	tf_fini(&f);
}

static void test_ks_dif_subr_uuidstr_memstr_memref(void **state)
{
	uint8_t u[16];
	tfire_t f;
	uint64_t a, *p;

	for (int i = 0; i < 16; i++)
		u[i] = (uint8_t)i;
	tf_init(&f);
	a = data(&f, u, 16);
	assert_string_equal(CALLS(&f, DIF_SUBR_uuidstr, I(a)),
	    "00010203-0405-0607-0809-0a0b0c0d0e0f");
	a = data(&f, "a\0bc\0d\0", 7);
	assert_string_equal(CALLS(&f, DIF_SUBR_memstr, I(a), I(' '), I(7)),
	    "a bc d");
	assert_string_equal(CALLS(&f, DIF_SUBR_memstr, I(a), I(' '), I(5000)),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADSIZE);
	assert_int_equal(f.ms.kms_fault_addr, a);
	assert_int_equal(f.ms.kms_fault_pc, 6 * 4);	/* the CALL */
	p = (uint64_t *)(uintptr_t)CALL(&f, DIF_SUBR_memref, I(5), I(7));
	assert_non_null(p);
	assert_int_equal(p[0], 5);
	assert_int_equal(p[1], 7);
	tf_fini(&f);
}

static void test_ks_dif_subr_alloca_bcopy(void **state)
{
	tdif_t t;
	tfire_t f;
	uint64_t p;

	tf_init(&f);
	p = CALL(&f, DIF_SUBR_alloca, I(13));
	assert_true(p != 0 && p % 8 == 0);
	assert_true(p >= (uint64_t)(uintptr_t)f.scratch &&
	    p + 13 <= (uint64_t)(uintptr_t)f.scratch + f.ms.kms_scratch_used);
	assert_int_equal(CALL(&f, DIF_SUBR_alloca, I(1 << 20)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_NOSCRATCH);
	/* bcopy("hello", alloca(6), 6), return the copy */
	td_init(&t);
	td_setx(&t, 1, 6);
	td_emit(&t, DIF_INSTR_FLUSHTS);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1));
	td_emit(&t, DIF_INSTR_CALL(DIF_SUBR_alloca, 3));
	td_emit(&t, DIF_INSTR_FLUSHTS);
	td_sets(&t, 2, "hello");
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTR, DIF_TYPE_STRING, 0, 2));
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 3));
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1));
	td_emit(&t, DIF_INSTR_CALL(DIF_SUBR_bcopy, 4));
	td_emit(&t, DIF_INSTR_RET(3));
	f.ms.kms_scratch_used = 0;
	assert_string_equal((const char *)(uintptr_t)td_run(&t, &f), "hello");
	assert_int_equal(f.ms.kms_fault, 0);
	/* bcopy into the string table (not scratch) */
	t.text[7] = DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 2);
	td_run(&t, &f);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
}

static void test_ks_dif_subr_copyin(void **state)
{
	static const char word[] = "copy me";
	tfire_t f;
	uint64_t p;

	tf_init(&f);		/* kpc_pid is this process */
	p = CALL(&f, DIF_SUBR_copyin, I((uintptr_t)word), I(8));
	assert_non_null((void *)(uintptr_t)p);
	assert_memory_equal((const void *)(uintptr_t)p, word, 8);
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I((uintptr_t)word)),
	    "copy me");
	/* maxlen counts the NUL: copyinstr(a, 8) of "copy me" is whole,
	 * copyinstr(a, 4) is "cop" */
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I((uintptr_t)word),
	    I(8)), "copy me");
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I((uintptr_t)word),
	    I(4)), "cop");
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I((uintptr_t)word),
	    I(0)), "");
	assert_int_equal(CALL(&f, DIF_SUBR_copyin, I(8), I(4)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_addr, 8);
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I(16)), "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
	tf_init_sized(&f, 4096, 4);
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I((uintptr_t)word)),
	    "cop");
	tf_fini(&f);
}

static void test_ks_dif_subr_copyinstr_stops_at_unmapped(void **state)
{
	char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tfire_t f;

	assert_true(pg != MAP_FAILED);
	assert_int_equal(munmap(pg + 4096, 4096), 0);
	memcpy(pg + 4093, "abc", 3);	/* no NUL before the hole */
	tf_init(&f);
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr,
	    I((uintptr_t)(pg + 4093))), "abc");
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
	munmap(pg, 4096);
}

/* Captured user memory (kpc_ucap) serves copyinstr even when it is
 * shorter than the read (it ends at the string's NUL, whatever strsize),
 * and a capture cut short is continued from the live process. */
static void test_ks_dif_subr_copyinstr_short_capture(void **state)
{
	static const char live[] = "abcdefgh";
	ks_ucapture_t uc[2] = {
		{ 0x1000, 6, (const uint8_t *)"short" },
		{ (uintptr_t)live, 5, (const uint8_t *)"ABCDE" },
	};
	tfire_t f;

	(void)state;
	tf_init_sized(&f, 1 << 20, 1024);	/* reads of 1024 bytes */
	f.ctx.kpc_ucap = uc;
	f.ctx.kpc_nucap = 2;
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I(0x1000)),
	    "short");
	assert_int_equal(f.ms.kms_fault, 0);
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I(0x1002)), "ort");
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I(0x1000), I(3)),
	    "sh");
	/* captured prefix, then the live bytes after it */
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr,
	    I((uintptr_t)live)), "ABCDEfgh");
	assert_int_equal(f.ms.kms_fault, 0);
	/* no NUL in the capture and nothing readable after it: the prefix */
	uc[0].kuc_len = 3;
	assert_string_equal(CALLS(&f, DIF_SUBR_copyinstr, I(0x1000)), "sho");
	assert_int_equal(f.ms.kms_fault, 0);
	/* copyin still wants the whole range captured */
	assert_int_equal(CALL(&f, DIF_SUBR_copyin, I(0x1000), I(8)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
}

static void test_ks_dif_subr_copyinto(void **state)
{
	static const uint64_t src = 0x1122334455667788ull;
	tdif_t t;
	tfire_t f;

	tf_init(&f);
	td_init(&t);
	td_setx(&t, 1, 8);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1));
	td_emit(&t, DIF_INSTR_CALL(DIF_SUBR_alloca, 3));
	td_emit(&t, DIF_INSTR_FLUSHTS);
	td_setx(&t, 2, (uintptr_t)&src);
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 2));
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 1));
	td_emit(&t, DIF_INSTR_PUSHTS(DIF_OP_PUSHTV, DIF_TYPE_CTF, 0, 3));
	td_emit(&t, DIF_INSTR_CALL(DIF_SUBR_copyinto, 4));
	td_emit(&t, DIF_INSTR_LOAD(DIF_OP_LDX, 3, 5));
	td_emit(&t, DIF_INSTR_RET(5));
	assert_int_equal(td_run(&t, &f), src);
	assert_int_equal(f.ms.kms_fault, 0);
	tf_fini(&f);
}

static void test_ks_dif_subr_copyout(void **state)
{
	static char target[16];
	tfire_t f;

	strcpy(target, "xxxxxxxx");
	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_copyoutstr, S("hi"),
	    I((uintptr_t)target), I(16)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_ILLOP);
	assert_string_equal(target, "xxxxxxxx");
	f.ms.kms_destructive = 1;
	CALL(&f, DIF_SUBR_copyoutstr, S("hi"), I((uintptr_t)target), I(16));
	assert_int_equal(f.ms.kms_fault, 0);
	assert_string_equal(target, "hi");
	CALL(&f, DIF_SUBR_copyout, S("abcd"), I((uintptr_t)target), I(2));
	assert_int_equal(f.ms.kms_fault, 0);
	assert_memory_equal(target, "ab\0", 3);
	CALL(&f, DIF_SUBR_copyout, S("abcd"), I(8), I(2));
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	tf_fini(&f);
}

static int spec_calls;

static int fake_spec(void *arg)
{
	spec_calls++;
	return 3;
}

static int fake_progeny(void *arg, int32_t pid)
{
	return pid == 1;
}

static void test_ks_dif_subr_speculation_progenyof(void **state)
{
	const ks_mstate_ops_t ops = { fake_spec, fake_progeny };
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_speculation, I(0)), 0);
	assert_int_equal(CALL(&f, DIF_SUBR_progenyof, I(getpid())), 1);
	assert_int_equal(CALL(&f, DIF_SUBR_progenyof, I(getpid() + 1)), 0);
	f.ms.kms_ops = &ops;
	assert_int_equal(CALL(&f, DIF_SUBR_speculation, I(0)), 3);
	assert_int_equal(spec_calls, 1);
	assert_int_equal(CALL(&f, DIF_SUBR_progenyof, I(1)), 1);
	assert_int_equal(CALL(&f, DIF_SUBR_progenyof, I(getpid())), 0);
	spec_calls = 0;
	tf_fini(&f);
}

static void test_ks_dif_subr_rand(void **state)
{
	tfire_t f;
	uint64_t a, b, c, d;

	tf_init(&f);
	a = CALL(&f, DIF_SUBR_rand, I(0));
	b = CALL(&f, DIF_SUBR_rand, I(0));
	c = CALL(&f, DIF_SUBR_random, I(0));
	d = CALL(&f, DIF_SUBR_random, I(0));
	assert_true(a != b || b != CALL(&f, DIF_SUBR_rand, I(0)));
	assert_true(c != d);
	assert_true(a <= UINT32_MAX && b <= UINT32_MAX);
	tf_fini(&f);
}

static void test_ks_dif_subr_string_arg_faults(void **state)
{
	tfire_t f;

	tf_init(&f);
	assert_int_equal(CALL(&f, DIF_SUBR_strlen, I(0x10)), 0);
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_BADADDR);
	assert_int_equal(f.ms.kms_fault_addr, 0x10);
	tf_fini(&f);
}

static void test_ks_dif_subr_scratch_exhausted(void **state)
{
	tfire_t f;

	tf_init(&f);
	f.ms.kms_scratch_size = 4;
	assert_string_equal(CALLS(&f, DIF_SUBR_strjoin, S("foo"), S("bar")),
	    "(null)");
	assert_int_equal(f.ms.kms_fault, DTRACEFLT_NOSCRATCH);
	tf_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ks_dif_subr_strlen_strjoin),
		cmocka_unit_test(test_ks_dif_subr_substr),
		cmocka_unit_test(test_ks_dif_subr_index_rindex),
		cmocka_unit_test(test_ks_dif_subr_strchr_strstr),
		cmocka_unit_test(test_ks_dif_subr_strtok),
		cmocka_unit_test(test_ks_dif_subr_paths),
		cmocka_unit_test(test_ks_dif_subr_lltostr),
		cmocka_unit_test(test_ks_dif_subr_strtoll),
		cmocka_unit_test(test_ks_dif_subr_case),
		cmocka_unit_test(test_ks_dif_subr_json),
		cmocka_unit_test(test_ks_dif_subr_byte_order),
		cmocka_unit_test(test_ks_dif_subr_devices),
		cmocka_unit_test(test_ks_dif_subr_inet),
		cmocka_unit_test(test_ks_dif_subr_inet_ntoa6_like_dtrace),
		cmocka_unit_test(test_ks_dif_subr_uuidstr_memstr_memref),
		cmocka_unit_test(test_ks_dif_subr_alloca_bcopy),
		cmocka_unit_test(test_ks_dif_subr_copyin),
		cmocka_unit_test(test_ks_dif_subr_copyinstr_stops_at_unmapped),
		cmocka_unit_test(test_ks_dif_subr_copyinstr_short_capture),
		cmocka_unit_test(test_ks_dif_subr_copyinto),
		cmocka_unit_test(test_ks_dif_subr_copyout),
		cmocka_unit_test(test_ks_dif_subr_speculation_progenyof),
		cmocka_unit_test(test_ks_dif_subr_rand),
		cmocka_unit_test(test_ks_dif_subr_string_arg_faults),
		cmocka_unit_test(test_ks_dif_subr_scratch_exhausted),
	};

	return TD_RUN_BOTH(tests);
}
