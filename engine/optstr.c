/*
 * optstr.c - the options whose values are text, as dtrace(1M) has them
 * (dt_options.c): what they do to the C preprocessor (cpp, cppargs,
 * cpphdrs, cpppath, define, incdir, stdc, undef), where D libraries are
 * looked for (libdir), the D version (version), the files the C and
 * D types are written to (ctypes, dtypes), and how pid and usdt probes
 * are placed (uroute, providers.h).  Two compile flags live here too:
 * empty (an empty program is no error) and nolibs (no D libraries of
 * -L or libdir are loaded), as dtrace's DTRACE_C_EMPTY and _NOLIBS.
 *
 * The values live in struct eng_optstr (eh_optstr), made on first use
 * and freed by eng_close.  The preprocessor options may not be set from
 * a D program's #pragma D option (dtrace's "Option cannot be used from
 * within a D program"); eng_optstr_set() is told which it is.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "consume.h"
#include "providers.h"

struct eng_optstr {
	char **os_cppv;			/* preprocessor arguments, in order */
	int os_cppc;
	char *os_cpppath;		/* the preprocessor, NULL for gcc */
	char **os_libv;			/* -L / libdir directories */
	int os_libc;
	int os_typefd[2];		/* ctypes, dtypes files, or -1 */
	char os_version[16];		/* "1.13" unless set */
	unsigned os_flags;		/* ENG_OPTSTR_EMPTY, _NOLIBS */
};

/* The D versions dtrace knows, oldest first (dt_open.c's list). */
static const char *const versions[] = {
	"1.0", "1.1", "1.2", "1.2.1", "1.2.2", "1.3", "1.4", "1.4.1", "1.5",
	"1.6", "1.6.1", "1.6.2", "1.6.3", "1.7", "1.7.1", "1.8", "1.8.1",
	"1.9", "1.9.1", "1.10", "1.11", "1.12", "1.12.1", "1.13", NULL
};

static struct eng_optstr *get(eng_hdl_t *h)
{
	struct eng_optstr *os = h->eh_optstr;

	if (os == NULL && (os = calloc(1, sizeof(*os))) != NULL) {
		os->os_typefd[0] = os->os_typefd[1] = -1;
		strcpy(os->os_version, "1.13");
		h->eh_optstr = os;
	}
	return os;
}

static int push(char ***vp, int *cp, const char *a, const char *b)
{
	char **v = realloc(*vp, (size_t)(*cp + 2) * sizeof(*v));
	char *s = malloc(strlen(a) + strlen(b) + 1);

	if (v != NULL)
		*vp = v;
	if (v == NULL || s == NULL) {
		free(s);
		return -1;
	}
	strcpy(s, a);
	strcat(s, b);
	v[(*cp)++] = s;
	v[*cp] = NULL;
	return 0;
}

/* "1.2.1": digits and at most two dots, a version dtrace defines. */
static int set_version(eng_hdl_t *h, struct eng_optstr *os, const char *v)
{
	int dots = 0;

	for (const char *p = v; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p) && (*p != '.' || ++dots > 2))
			return eng_error(h, "Version is not properly formatted "
			    "or is too large");
	for (int i = 0; versions[i] != NULL; i++)
		if (strcmp(versions[i], v) == 0) {
			snprintf(os->os_version, sizeof(os->os_version), "%s", v);
			return 0;
		}
	return eng_error(h, "Requested version is not supported by compiler");
}

/* -X a|c|s|t: ISO C conformance of the preprocessor, as gcc can give it:
 * s (K&R C) is -traditional-cpp, c (strict ISO C: no predefined names
 * outside the reserved space, such as "linux") -std=c99, a and t (ISO C
 * with K&R extensions, gcc's default) add nothing. */
static int set_stdc(eng_hdl_t *h, struct eng_optstr *os, const char *v)
{
	if (v[0] == '\0' || v[1] != '\0' || strchr("acst", v[0]) == NULL)
		return eng_error(h, "Invalid value for specified option");
	if (v[0] == 's')
		return push(&os->os_cppv, &os->os_cppc, "-traditional-cpp", "");
	if (v[0] == 'c')
		return push(&os->os_cppv, &os->os_cppc, "-std=c99", "");
	return 0;
}

static int set_cppargs(struct eng_optstr *os, const char *v)
{
	char *s = strdup(v), *w, *save = NULL;
	int r = s != NULL ? 0 : -1;

	for (w = s != NULL ? strtok_r(s, " \t", &save) : NULL; w != NULL &&
	    r == 0; w = strtok_r(NULL, " \t", &save))
		r = push(&os->os_cppv, &os->os_cppc, w, "");
	free(s);
	return r;
}

static int set_typefile(eng_hdl_t *h, struct eng_optstr *os, int which,
    const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);

	if (fd < 0)
		return eng_error(h, "%s", strerror(errno));
	if (os->os_typefd[which] >= 0)
		close(os->os_typefd[which]);
	os->os_typefd[which] = fd;
	return 0;
}

/* Options that reshape the preprocessor's run: not from a D program. */
static int cpp_only(const char *name)
{
	static const char *const cpp[] = { "cppargs", "cpphdrs", "cpppath",
	    "define", "incdir", "stdc", "undef", NULL };

	for (int i = 0; cpp[i] != NULL; i++)
		if (strcmp(cpp[i], name) == 0)
			return 1;
	return 0;
}

int eng_optstr_is(const char *name)
{
	static const char *const all[] = { "cppargs", "cpphdrs", "cpppath",
	    "ctypes", "define", "dtypes", "incdir", "libdir", "stdc", "undef",
	    "uroute", "version", "empty", "nolibs", NULL };

	for (int i = 0; all[i] != NULL; i++)
		if (strcmp(all[i], name) == 0)
			return 1;
	return 0;
}

int eng_optstr_set(eng_hdl_t *h, const char *name, const char *v,
    int from_program)
{
	struct eng_optstr *os = get(h);
	int r;

	if (os == NULL)
		return eng_error(h, "Memory allocation failure");
	if (from_program && cpp_only(name))
		return eng_error(h, "Option cannot be used from within a D "
		    "program");
	if (strcmp(name, "cpphdrs") == 0) {
		if (v != NULL)
			return eng_error(h, "Invalid value for specified "
			    "option");
		r = push(&os->os_cppv, &os->os_cppc, "-H", "");
	} else if (strcmp(name, "empty") == 0 || strcmp(name, "nolibs") == 0) {
		/* flags: dtrace takes no value for them */
		if (v != NULL && *v != '\0')
			return eng_error(h, "Invalid value for specified option");
		os->os_flags |= name[0] == 'e' ? ENG_OPTSTR_EMPTY :
		    ENG_OPTSTR_NOLIBS;
		return 0;
	} else if (v == NULL) {
		return eng_error(h, "Invalid value for specified option");
	} else if (strcmp(name, "define") == 0) {
		r = push(&os->os_cppv, &os->os_cppc, "-D", v);
	} else if (strcmp(name, "undef") == 0) {
		r = push(&os->os_cppv, &os->os_cppc, "-U", v);
	} else if (strcmp(name, "incdir") == 0) {
		r = push(&os->os_cppv, &os->os_cppc, "-I", v);
	} else if (strcmp(name, "cppargs") == 0) {
		r = set_cppargs(os, v);
	} else if (strcmp(name, "cpppath") == 0) {
		char *s = strdup(v);

		if (s != NULL) {
			free(os->os_cpppath);
			os->os_cpppath = s;
		}
		r = s != NULL ? 0 : -1;
	} else if (strcmp(name, "libdir") == 0) {
		r = push(&os->os_libv, &os->os_libc, v, "");
	} else if (strcmp(name, "stdc") == 0) {
		return set_stdc(h, os, v);
	} else if (strcmp(name, "version") == 0) {
		return set_version(h, os, v);

	} else if (strcmp(name, "uroute") == 0) {
		/* how pid and usdt probes are placed (providers.h) */
		return prov_set_uroute(v) == 0 ? 0 : eng_error(h, "Invalid "
		    "value for specified option");
	} else if (strcmp(name, "ctypes") == 0 || strcmp(name, "dtypes") == 0) {
		return set_typefile(h, os, name[0] == 'd', v);
	} else {
		return eng_error(h, "Invalid option name");
	}
	return r == 0 ? 0 : eng_error(h, "Memory allocation failure");
}

const char *const *eng_opt_cppargs(const eng_hdl_t *h)
{
	const struct eng_optstr *os = h->eh_optstr;

	return os != NULL ? (const char *const *)os->os_cppv : NULL;
}

const char *eng_opt_cpppath(const eng_hdl_t *h)
{
	const struct eng_optstr *os = h->eh_optstr;

	return os != NULL && os->os_cpppath != NULL ? os->os_cpppath : "gcc";
}

const char *const *eng_opt_libdirs(const eng_hdl_t *h)
{
	const struct eng_optstr *os = h->eh_optstr;

	return os != NULL ? (const char *const *)os->os_libv : NULL;
}

unsigned eng_opt_strflags(const eng_hdl_t *h)
{
	const struct eng_optstr *os = h->eh_optstr;

	return os != NULL ? os->os_flags : 0;
}

const char *eng_opt_version(const eng_hdl_t *h)
{
	const struct eng_optstr *os = h->eh_optstr;

	return os != NULL ? os->os_version : "1.13";
}

void eng_optstr_free(eng_hdl_t *h)
{
	struct eng_optstr *os = h->eh_optstr;

	if (os == NULL)
		return;
	for (int i = 0; i < os->os_cppc; i++)
		free(os->os_cppv[i]);
	for (int i = 0; i < os->os_libc; i++)
		free(os->os_libv[i]);
	free(os->os_cppv);
	free(os->os_libv);
	free(os->os_cpppath);
	for (int i = 0; i < 2; i++)
		if (os->os_typefd[i] >= 0)
			close(os->os_typefd[i]);
	free(os);
	h->eh_optstr = NULL;
}
