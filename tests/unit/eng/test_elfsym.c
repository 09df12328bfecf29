/*
 * test_elfsym.c - the ELF symbol reader (elfsym.c), a process's mapped
 * objects (pmap.c) and the process control API (proc.c): this test's
 * own binary read from disk and from memory; corrupt images refused with
 * a message; libc's aliases resolved to the public name and its PLT
 * slots named name@plt; a created process held until continued, its exit
 * and signal reported; a grabbed process that is not there refused with
 * dtrace's words; a created process still running killed at release.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "eng_test.h"
#include "elfsym.h"

int test_elfsym_target(int n);
int test_elfsym_target(int n)
{
	volatile int x = 0;

	for (int i = 0; i < n; i++)
		x += i;
	return x;
}

static char *slurp(const char *path, size_t *len)
{
	struct stat sb;
	int fd = open(path, O_RDONLY);
	char *buf;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	buf = malloc((size_t)sb.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)sb.st_size), sb.st_size);
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

/* The object in this process mapping addr, through a fresh pmap. */
static const eng_elfsym_t *self_lookup(uint64_t addr, const char **mod)
{
	static eng_pmap_t *pm;
	eng_pobj_t *po;
	eng_elfobj_t *eo;

	if (pm == NULL) {
		pm = eng_pmap_new(getpid());
		assert_non_null(pm);
	}
	assert_true(eng_pmap_update(pm) >= 0);
	po = eng_pmap_find(pm, addr);
	assert_non_null(po);
	eo = eng_pmap_elf(pm, po);
	assert_non_null(eo);
	*mod = eng_pmap_modname(pm, po);
	return eng_elf_lookup(eo, addr - po->po_bias);
}

static void test_own_function(void **state)
{
	const char *mod;
	const eng_elfsym_t *s = self_lookup(
	    (uint64_t)(uintptr_t)&test_elfsym_target + 1, &mod);

	(void)state;
	assert_non_null(s);
	assert_string_equal(s->es_name, "test_elfsym_target");
	assert_true(s->es_func);
	assert_string_equal(mod, "a.out");
}

static void test_libc_alias_and_plt(void **state)
{
	const char *mod;
	const eng_elfsym_t *s = self_lookup((uint64_t)(uintptr_t)&getpid,
	    &mod);
	char exe[4096], err[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof (exe) - 1);
	eng_elfobj_t *o;
	int plt = 0;

	(void)state;
	assert_non_null(s);
	assert_string_equal(s->es_name, "getpid");	/* not __getpid */
	assert_string_equal(mod, "libc.so.6");
	assert_true(n > 0);
	exe[n] = '\0';
	o = eng_elf_get(exe, err, sizeof (err));
	assert_non_null(o);
	for (size_t i = 0; i < o->eo_nsyms; i++)
		plt |= strcmp(o->eo_syms[i].es_name, "readlink@plt") == 0;
	assert_true(plt);
	assert_ptr_equal(eng_elf_get(exe, err, sizeof (err)), o); /* cached */
	eng_elf_put(o);
	eng_elf_put(o);
}

static void test_memory_and_corrupt(void **state)
{
	char exe[4096], err[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof (exe) - 1);
	size_t len;
	char *buf;
	eng_elfobj_t *o;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	buf = slurp(exe, &len);
	o = eng_elf_parse(buf, len, "self", err, sizeof (err));
	assert_non_null(o);
	assert_false(o->eo_stripped);
	assert_true(o->eo_nsyms > 10);
	eng_elf_free(o);
	/* not ELF */
	assert_null(eng_elf_parse("hello", 5, "junk", err, sizeof (err)));
	assert_non_null(strstr(err, "junk: not an ELF file"));
	/* a section table pointing past the end */
	memset(buf + 0x28, 0xff, 8);			/* e_shoff */
	o = eng_elf_parse(buf, len, "bad", err, sizeof (err));
	if (o == NULL)
		assert_non_null(strstr(err, "bad: corrupt ELF file"));
	else
		assert_int_equal(o->eo_nsyms, 0);
	eng_elf_free(o);
	/* cut short */
	o = eng_elf_parse(buf, 40, "short", err, sizeof (err));
	if (o != NULL)
		assert_int_equal(o->eo_nsyms, 0);
	eng_elf_free(o);
	free(buf);
	assert_null(eng_elf_get("/nonexistent/x", err, sizeof (err)));
	assert_non_null(strstr(err, "/nonexistent/x: cannot open"));
}

static void test_create_continue_exit(void **state)
{
	char err[256];
	eng_proc_t *p;
	int st = -1, n = 0;

	(void)state;
	p = eng_proc_create("(exit 7)", ENG_PROC_SHELL, NULL, err, sizeof (err));
	assert_non_null(p);
	assert_int_equal(eng_proc_poll(p, &st), ENG_PROC_HELD);
	assert_int_equal(eng_proc_continue(p, NULL), 0);
	while (eng_proc_poll(p, &st) == ENG_PROC_RUNNING && n++ < 5000)
		usleep(1000);
	assert_int_equal(eng_proc_poll(p, &st), ENG_PROC_EXITED);
	assert_int_equal(st, 7);
	eng_proc_release(p);
}

static void test_killed_and_release(void **state)
{
	char err[256];
	eng_proc_t *p = eng_proc_create("sleep 60", 0, NULL, err, sizeof (err));
	int st = -1, n = 0, pid;

	(void)state;
	assert_non_null(p);
	pid = eng_proc_pid(p);
	assert_int_equal(eng_proc_continue(p, NULL), 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	while (eng_proc_poll(p, &st) == ENG_PROC_RUNNING && n++ < 5000)
		usleep(1000);
	assert_int_equal(eng_proc_poll(p, &st), ENG_PROC_KILLED);
	assert_int_equal(st, SIGTERM);
	eng_proc_release(p);
	/* still running at release: killed and reaped */
	p = eng_proc_create("sleep 60", 0, NULL, err, sizeof (err));
	assert_non_null(p);
	pid = eng_proc_pid(p);
	assert_int_equal(eng_proc_continue(p, NULL), 0);
	eng_proc_release(p);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_bad_input(void **state)
{
	char err[256];

	(void)state;
	assert_null(eng_proc_create("/nonexistent/cmd", 0, NULL, err,
	    sizeof (err)));
	assert_string_equal(err, "failed to execute /nonexistent/cmd: cannot "
	    "find executable file");
	assert_null(eng_proc_create("  ", 0, NULL, err, sizeof (err)));
	assert_null(eng_proc_grab(999999999, err, sizeof (err)));
	assert_string_equal(err, "failed to grab pid 999999999: No such "
	    "process");
}

static void test_grab_self(void **state)
{
	char err[256];
	eng_proc_t *p = eng_proc_grab(getpid(), err, sizeof (err));

	(void)state;
	assert_non_null(p);
	assert_int_equal(eng_proc_pid(p), getpid());
	assert_int_equal(eng_proc_poll(p, NULL), ENG_PROC_RUNNING);
	eng_proc_release(p);			/* left running: us */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function),
		cmocka_unit_test(test_libc_alias_and_plt),
		cmocka_unit_test(test_memory_and_corrupt),
		cmocka_unit_test(test_create_continue_exit),
		cmocka_unit_test(test_killed_and_release),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_grab_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
