/*
 * opt.c - options by dtrace's names, units and suffixes.
 *
 * One table (opts[]) lists every option: its name, its index in
 * eh_opt[] (DTRACEOPT_* or ENG_OPT_*), how its value is parsed, its
 * default, and its class, as dtrace(1M) has them:
 *   CT  compile-time options (errtags, zdefs ...): settable at any time;
 *   RT  options the shim needs at ENABLE (bufsize ...): refused after GO;
 *   DRT dynamic runtime options (quiet, agg* ...): may change while
 *       tracing and take effect at the next eng_work/eng_agg_print.
 * Values: sizes take k/m/g/t suffixes (bytes); rates take ns, us, ms, s,
 * m, h, d (and long forms) or hz, a bare number is nanoseconds; booleans
 * take no value (or 0/1); bufpolicy ring/fill/switch; bufresize
 * auto/manual; oformat text/json/chrome/folded.
 * Values above the shim's limits (cap()) are fitted as DTrace's kernel
 * fits them at GO: buffer sizes halved while bufresize is auto (the value
 * asked for kept in ec_optasked[] for the "lowered to" notice), strsize,
 * nspec and stack frames capped; sizes of 0 made 1.  Invariant: eh_opt[]
 * never holds a value the shim refuses, except a size under
 * bufresize=manual.
 * TUNE options tune how dtrace's own library works (preallocate: its
 * heap; lazyload, pgmax: how it loads modules and caches processes;
 * procfspath, modpath: where it looks for /proc and modules): this
 * engine has no such parts, so they are checked as dtrace checks them
 * and accepted, with no effect.  TUNECMD ones may not come from a D
 * program's #pragma (dtrace's "Option cannot be used from within a D
 * program").  quietresize (no "... lowered to" notices) is kept in
 * eh_quietresize, outside eh_opt[].
 * XT options are dtrace's compile-time ones kept in eh_xopt[] (ENG_XOPT_*):
 * evaltime (when a -c command starts being traced), verbose and disasm
 * (the -S listing), tree (the parse tree), iregs (registers the code
 * generator may use), and those checked as dtrace checks them with no
 * effect here (amin, debug, late, linkmode, linktype, strip, tregs,
 * useruid; ldpath and syslibdir are TUNECMD).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "consume.h"
#include "exp.h"

enum kind { K_SIZE, K_RATE, K_BOOL, K_INT, K_POLICY, K_RESIZE, K_OFORMAT,
	K_TEXT, K_EVALTIME, K_LATE, K_LINKMODE, K_LINKTYPE, K_ATOI, K_UINT,
	K_ATTR };
enum class { CT, RT, DRT, TUNE, TUNECMD, XT };

struct opt {
	const char *name;
	int index;
	enum kind kind;
	enum class cls;
	dtrace_optval_t def;		/* default, DTRACEOPT_UNSET if none */
};

/* Options kept outside eh_opt[] (whose size experiments record). */
#define OPT_QUIETRESIZE	(-2)	/* in eh_quietresize */

#define NS 1000000000LL
#define MB (1024LL * 1024)

static const struct opt opts[] = {
	{ "aggpercpu", ENG_OPT_AGGPERCPU, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "aggrate", DTRACEOPT_AGGRATE, K_RATE, DRT, NS },
	{ "aggsize", DTRACEOPT_AGGSIZE, K_SIZE, RT, 4 * MB },
	{ "aggsortkey", DTRACEOPT_AGGSORTKEY, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "aggsortkeypos", DTRACEOPT_AGGSORTKEYPOS, K_INT, DRT, 0 },
	{ "aggsortpos", DTRACEOPT_AGGSORTPOS, K_INT, DRT, 0 },
	{ "aggsortrev", DTRACEOPT_AGGSORTREV, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "amin", ENG_XOPT_AMIN, K_ATTR, XT, DTRACEOPT_UNSET },
	{ "agghist", DTRACEOPT_AGGHIST, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "aggpack", DTRACEOPT_AGGPACK, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "aggzoom", DTRACEOPT_AGGZOOM, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "argref", ENG_OPT_ARGREF, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "bufpolicy", DTRACEOPT_BUFPOLICY, K_POLICY, RT,
	  DTRACEOPT_BUFPOLICY_SWITCH },
	{ "bufresize", DTRACEOPT_BUFRESIZE, K_RESIZE, RT,
	  DTRACEOPT_BUFRESIZE_AUTO },
	{ "bufsize", DTRACEOPT_BUFSIZE, K_SIZE, RT, 4 * MB },
	{ "cleanrate", DTRACEOPT_CLEANRATE, K_RATE, RT, NS / 101 },
	{ "core", ENG_OPT_CORE, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "cpp", ENG_OPT_CPP, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "cpu", DTRACEOPT_CPU, K_INT, RT, DTRACEOPT_UNSET },
	{ "debug", ENG_XOPT_DEBUG, K_BOOL, XT, DTRACEOPT_UNSET },
	{ "defaultargs", ENG_OPT_DEFAULTARGS, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "destructive", DTRACEOPT_DESTRUCTIVE, K_BOOL, RT, DTRACEOPT_UNSET },
	{ "disasm", ENG_XOPT_DISASM, K_UINT, XT, DTRACEOPT_UNSET },
	{ "droptags", ENG_OPT_DROPTAGS, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "dynvarsize", DTRACEOPT_DYNVARSIZE, K_SIZE, RT, 1 * MB },
	{ "errtags", ENG_OPT_ERRTAGS, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "evaltime", ENG_XOPT_EVALTIME, K_EVALTIME, XT, ENG_EVALTIME_POSTINIT },
	{ "flowindent", DTRACEOPT_FLOWINDENT, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "grabanon", DTRACEOPT_GRABANON, K_BOOL, RT, DTRACEOPT_UNSET },
	{ "iregs", ENG_XOPT_IREGS, K_ATOI, XT, 8 },
	{ "jstackframes", DTRACEOPT_JSTACKFRAMES, K_INT, RT, 50 },
	{ "jstackstrsize", DTRACEOPT_JSTACKSTRSIZE, K_SIZE, RT, 512 },
	{ "late", ENG_XOPT_LATE, K_LATE, XT, 1 },
	{ "lazyload", -1, K_BOOL, TUNE, DTRACEOPT_UNSET },
	{ "ldpath", -1, K_TEXT, TUNECMD, DTRACEOPT_UNSET },
	{ "linkmode", ENG_XOPT_LINKMODE, K_LINKMODE, XT, 0 },
	{ "linktype", ENG_XOPT_LINKTYPE, K_LINKTYPE, XT, 0 },
	{ "maxframes", ENG_OPT_MAXFRAMES, K_INT, CT, DTRACEOPT_UNSET },
	{ "modpath", -1, K_TEXT, TUNECMD, DTRACEOPT_UNSET },
	{ "noresolve", ENG_OPT_NORESOLVE, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "nspec", DTRACEOPT_NSPEC, K_INT, RT, 1 },
	{ "oformat", ENG_OPT_OFORMAT, K_OFORMAT, DRT, ENG_OFORMAT_TEXT },
	{ "pgmax", -1, K_INT, TUNE, DTRACEOPT_UNSET },
	{ "preallocate", -1, K_SIZE, TUNE, DTRACEOPT_UNSET },
	{ "procfspath", -1, K_TEXT, TUNECMD, DTRACEOPT_UNSET },
	{ "pspec", ENG_OPT_PSPEC, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "quiet", DTRACEOPT_QUIET, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "quietresize", OPT_QUIETRESIZE, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "rawbytes", DTRACEOPT_RAWBYTES, K_BOOL, DRT, DTRACEOPT_UNSET },
	{ "scratchsize", DTRACEOPT_SCRATCHSIZE, K_SIZE, RT, DTRACEOPT_UNSET },
	{ "specsize", DTRACEOPT_SPECSIZE, K_SIZE, RT, 32 * 1024 },
	{ "stackframes", DTRACEOPT_STACKFRAMES, K_INT, RT, 20 },
	{ "stackindent", DTRACEOPT_STACKINDENT, K_INT, DRT, 14 },
	{ "statusrate", DTRACEOPT_STATUSRATE, K_RATE, RT, NS },
	{ "strip", ENG_XOPT_STRIP, K_BOOL, XT, DTRACEOPT_UNSET },
	{ "strsize", DTRACEOPT_STRSIZE, K_SIZE, RT, 256 },
	{ "switchrate", DTRACEOPT_SWITCHRATE, K_RATE, DRT, NS },
	{ "syslibdir", -1, K_TEXT, TUNECMD, DTRACEOPT_UNSET },
	{ "tree", ENG_XOPT_TREE, K_ATOI, XT, DTRACEOPT_UNSET },
	{ "tregs", ENG_XOPT_TREGS, K_ATOI, XT, 8 },
	{ "useruid", ENG_XOPT_USERUID, K_UINT, XT, DTRACEOPT_UNSET },
	{ "ustackframes", DTRACEOPT_USTACKFRAMES, K_INT, RT, 20 },
	{ "verbose", ENG_XOPT_VERBOSE, K_BOOL, XT, DTRACEOPT_UNSET },
	{ "zdefs", ENG_OPT_ZDEFS, K_BOOL, CT, DTRACEOPT_UNSET },
	{ "zone", DTRACEOPT_ZONE, K_INT, RT, DTRACEOPT_UNSET },
};
#define NOPTS (sizeof (opts) / sizeof (opts[0]))

/* The text-valued options (optstr.c), for eng_option_names(). */
static const char *const textopts[] = { "cppargs", "cpphdrs", "cpppath",
	"ctypes", "define", "dtypes", "incdir", "libdir", "stdc", "undef",
	"uroute", "version" };
#define NTEXT (sizeof (textopts) / sizeof (textopts[0]))

static const struct opt *lookup(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

/* Number with an optional k/m/g/t suffix (dtrace's dt_opt_size). */
static int parse_size(const char *s, dtrace_optval_t *v)
{
	char *end;
	uint64_t mul = 1, n;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (end == s || errno != 0 || *s == '-')
		return -1;
	switch (*end) {
	case 't': case 'T': mul <<= 10; /* FALLTHROUGH */
	case 'g': case 'G': mul <<= 10; /* FALLTHROUGH */
	case 'm': case 'M': mul <<= 10; /* FALLTHROUGH */
	case 'k': case 'K': mul <<= 10;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0' || (mul > 1 && n > INT64_MAX / mul))
		return -1;
	*v = (dtrace_optval_t)(n * mul);
	return 0;
}

/* Number with a time or frequency suffix (dtrace's dt_opt_rate). */
static int parse_rate(const char *s, dtrace_optval_t *v)
{
	static const struct { const char *sfx; int64_t mul; } sfx[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", NS },
		{ "sec", NS }, { "m", 60 * NS }, { "min", 60 * NS },
		{ "h", 3600 * NS }, { "hour", 3600 * NS },
		{ "d", 86400 * NS }, { "day", 86400 * NS }, { "hz", 0 },
	};
	char *end;
	int64_t mul = 1;
	uint64_t n;
	size_t i;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (end == s || errno != 0 || *s == '-')
		return -1;
	if (*end != '\0') {
		for (i = 0; i < sizeof (sfx) / sizeof (sfx[0]); i++)
			if (strcasecmp(sfx[i].sfx, end) == 0)
				break;
		if (i == sizeof (sfx) / sizeof (sfx[0]))
			return -1;
		mul = sfx[i].mul;
	}
	if (mul == 0)
		*v = n == 0 ? 0 : NS / (int64_t)n;
	else if (n > (uint64_t)(INT64_MAX / mul))
		return -1;
	else
		*v = (dtrace_optval_t)n * mul;
	return 0;
}

static int parse_int(const char *s, dtrace_optval_t *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 0);
	if (end == s || *end != '\0' || errno != 0)
		return -1;
	*v = n;
	return 0;
}

static int parse_word(const char *s, const char *const *words,
    dtrace_optval_t *v)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0) {
			*v = i;
			return 0;
		}
	return -1;
}

/* Stability attributes, dtrace_str2attr's way: up to three of
 * name/data/class, each a stability or class name in any case. */
static int parse_attr(const char *s, dtrace_optval_t *v)
{
	static const char *const stab[] = { "Internal", "Private", "Obsolete",
	    "External", "Unstable", "Evolving", "Stable", "Standard", NULL };
	static const char *const cls[] = { "Unknown", "CPU", "Platform",
	    "Group", "ISA", "Common", NULL };
	char buf[128], *p, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (p = strtok_r(buf, "/", &save); p != NULL;
	    p = strtok_r(NULL, "/", &save), n++) {
		const char *const *t = n < 2 ? stab : cls;
		int i;

		for (i = 0; t[i] != NULL && strcasecmp(p, t[i]) != 0; i++)
			;
		if (n > 2 || t[i] == NULL)
			return -1;
	}
	*v = 1;
	return 0;
}

/* A whole decimal number >= 0 (Oracle's disasm, useruid). */
static int parse_uint(const char *s, dtrace_optval_t *v)
{
	return parse_int(s, v) != 0 || *v < 0 ? -1 : 0;
}

static int parse(const struct opt *o, const char *s, dtrace_optval_t *v)
{
	static const char *const policy[] = { "ring", "fill", "switch", NULL };
	static const char *const resize[] = { "auto", "manual", NULL };
	static const char *const oformat[] = { "text", "json", "chrome",
	    "folded", NULL };
	static const char *const evaltime[] = { "exec", "preinit",
	    "postinit", "main", NULL };
	static const char *const late[] = { "dynamic", "static", NULL };
	static const char *const linkmode[] = { "kernel", "dynamic",
	    "static", NULL };
	static const char *const linktype[] = { "elf", "dof", NULL };

	if (o->kind == K_BOOL) {
		static const char *const yes[] = { "yes", "true", "on", NULL };
		static const char *const no[] = { "no", "false", "off", NULL };

		if (s == NULL || *s == '\0') {
			*v = 1;
			return 0;
		}
		for (int i = 0; yes[i] != NULL; i++)	/* Oracle's words */
			if (strcasecmp(s, yes[i]) == 0 ||
			    strcasecmp(s, no[i]) == 0) {
				*v = strcasecmp(s, yes[i]) == 0 ? 1 :
				    DTRACEOPT_UNSET;
				return 0;
			}
		if (parse_int(s, v) != 0 || *v < 0)
			return -1;
		*v = *v ? 1 : DTRACEOPT_UNSET;
		return 0;
	}
	if (s == NULL || *s == '\0')
		return -1;
	switch (o->kind) {
	case K_SIZE: return parse_size(s, v);
	case K_RATE: return parse_rate(s, v);
	case K_INT: return parse_int(s, v);
	case K_POLICY: return parse_word(s, policy, v);
	case K_RESIZE: return parse_word(s, resize, v);
	case K_OFORMAT: return parse_word(s, oformat, v);
	case K_TEXT: *v = 0; return 0;
	case K_EVALTIME: return parse_word(s, evaltime, v);
	case K_LATE: return parse_word(s, late, v);
	case K_LINKMODE: return parse_word(s, linkmode, v);
	case K_LINKTYPE: return parse_word(s, linktype, v);
	case K_ATOI:		/* dtrace's atoi(arg) > 0 */
		*v = atoi(s);
		return *v > 0 ? 0 : -1;
	case K_UINT: return parse_uint(s, v);
	case K_ATTR: return parse_attr(s, v);
	default: return -1;
	}
}

/* Put every option at its default (eng_open). */
void eng_opt_defaults(eng_hdl_t *h)
{
	for (int i = 0; i < ENG_OPT_MAX; i++)
		h->eh_opt[i] = DTRACEOPT_UNSET;
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].cls == XT)
			h->eh_xopt[opts[i].index] = opts[i].def;
		else if (opts[i].index >= 0)
			h->eh_opt[opts[i].index] = opts[i].def;
	h->eh_quietresize = DTRACEOPT_UNSET;
}

/* The shim's upper limits (kernel-shim/dof_load.c, opt_max), 0 if none. */
static dtrace_optval_t cap(int index)
{
	switch (index) {
	case DTRACEOPT_BUFSIZE: case DTRACEOPT_AGGSIZE:
	case DTRACEOPT_DYNVARSIZE:	return (dtrace_optval_t)1 << 30;
	case DTRACEOPT_SPECSIZE:	return (dtrace_optval_t)64 << 20;
	case DTRACEOPT_NSPEC:		return 4096;
	case DTRACEOPT_STRSIZE:		return 65536;	/* dtrace_strsize_max */
	case DTRACEOPT_STACKFRAMES:
	case DTRACEOPT_USTACKFRAMES:	return 1024;
	case DTRACEOPT_SCRATCHSIZE:	return (dtrace_optval_t)64 << 20;
	default:			return 0;
	}
}

static int resizable(int index)
{
	return index == DTRACEOPT_BUFSIZE || index == DTRACEOPT_AGGSIZE ||
	    index == DTRACEOPT_SPECSIZE || index == DTRACEOPT_DYNVARSIZE;
}

/* What DTrace's kernel allocates for size v (dtrace_state_buffer): v
 * halved, 8-byte aligned, until it fits. */
static dtrace_optval_t halve(dtrace_optval_t v, dtrace_optval_t max)
{
	for (; v > max; v >>= 1)
		;
	return v - (v & 7);
}

/* Put the resizable sizes asked for above their caps in force again
 * after bufsize... or bufresize changed. */
static void refit(eng_hdl_t *h)
{
	int manual = h->eh_opt[DTRACEOPT_BUFRESIZE] ==
	    DTRACEOPT_BUFRESIZE_MANUAL;

	for (int i = 0; i < DTRACEOPT_MAX; i++) {
		dtrace_optval_t asked = h->eh_cons->ec_optasked[i];

		if (asked != 0)
			h->eh_opt[i] = manual ? asked : halve(asked, cap(i));
	}
}

/* Store v for option index, fitted to the shim's limits. */
static void store(eng_hdl_t *h, int index, dtrace_optval_t v)
{
	dtrace_optval_t max = cap(index);

	/* the shim's floor for sizes: a size of 0 is refused (bufsize) or
	 * finds no room (aggsize...) at GO, as in DTrace, not at ENABLE */
	if (v < 1 && (resizable(index) || index == DTRACEOPT_STRSIZE))
		v = 1;
	if (resizable(index)) {
		h->eh_cons->ec_optasked[index] = v > max ? v : 0;
		h->eh_opt[index] = v;
		refit(h);
		return;
	}
	h->eh_opt[index] = max > 0 && v > max ? max : v;
	if (index == DTRACEOPT_BUFRESIZE)
		refit(h);
}

int eng_opt_fitted(eng_hdl_t *h, const char *name, int64_t *asked,
    int64_t *now)
{
	int i = eng_opt_index(name);
	dtrace_optval_t a;

	if (i < 0 || !resizable(i) || (a = h->eh_cons->ec_optasked[i]) == 0)
		return 0;
	*asked = a;
	*now = h->eh_opt[i];
	return h->eh_opt[i] == a ? -1 : 1;
}

/* maxframes caps the stack options (and stack()/ustack() sizes). */
static void cap_frames(eng_hdl_t *h)
{
	dtrace_optval_t max = h->eh_opt[ENG_OPT_MAXFRAMES];

	if (max == DTRACEOPT_UNSET)
		return;
	if (h->eh_opt[DTRACEOPT_STACKFRAMES] > max)
		h->eh_opt[DTRACEOPT_STACKFRAMES] = max;
	if (h->eh_opt[DTRACEOPT_USTACKFRAMES] > max)
		h->eh_opt[DTRACEOPT_USTACKFRAMES] = max;
}

static int setopt(eng_hdl_t *h, const char *name, const char *value,
    int from_program)
{
	const struct opt *o = name != NULL ? lookup(name) : NULL;
	dtrace_optval_t v;
	int r;

	if (o == NULL && name != NULL &&
	    (r = eng_exp_setopt(h, name, value)) != 0)
		return r < 0 ? -1 : 0;
	if (o == NULL && name != NULL && eng_optstr_is(name))
		return eng_optstr_set(h, name, value, from_program);
	if (o == NULL)
		return eng_error(h, "Invalid option name");
	if (o->cls == RT && h->eh_go)
		return eng_error(h, "Operation illegal when tracing is active");
	if (parse(o, value, &v) != 0)
		return eng_error(h, "Invalid value for specified option");
	if (o->kind == K_INT && o->index != DTRACEOPT_AGGSORTKEYPOS &&
	    o->index != DTRACEOPT_AGGSORTPOS && o->index != DTRACEOPT_CPU &&
	    o->index != DTRACEOPT_ZONE && v < 0)
		return eng_error(h, "Invalid value for specified option");
	if (o->index == ENG_OPT_MAXFRAMES && v < 1)
		return eng_error(h, "Invalid value for specified option");
	if (o->cls == TUNECMD && from_program)
		return eng_error(h, "Option cannot be used from within a D "
		    "program");
	if (o->cls == TUNE || o->cls == TUNECMD)
		return 0;
	if (o->index == OPT_QUIETRESIZE) {
		h->eh_quietresize = v;
		return 0;
	}
	if (o->cls == XT) {
		h->eh_xopt[o->index] = v;
		return 0;
	}
	/* a string needs room for one character and its NUL (Oracle's
	 * dtrace refuses a smaller strsize when it is set) */
	if (o->index == DTRACEOPT_STRSIZE && v < 2)
		return eng_error(h, "Invalid value for specified option");
	store(h, o->index, v);
	cap_frames(h);
	eng_exp_optchanged(h, o->index);
	return 0;
}

int eng_setopt(eng_hdl_t *h, const char *name, const char *value)
{
	return setopt(h, name, value, 0);
}

int eng_setopt_pragma(eng_hdl_t *h, const char *name, const char *value)
{
	return setopt(h, name, value, 1);
}

int eng_getopt(eng_hdl_t *h, const char *name, int64_t *valp)
{
	const struct opt *o = name != NULL ? lookup(name) : NULL;

	if (o != NULL && o->index == OPT_QUIETRESIZE) {
		*valp = h->eh_quietresize;
		return 0;
	}
	if (o != NULL && o->cls == XT) {
		*valp = h->eh_xopt[o->index];
		return 0;
	}
	if (o == NULL || o->index < 0)	/* dtrace gets only the stored ones */
		return eng_error(h, "Invalid option name");
	*valp = h->eh_opt[o->index];
	return 0;
}

const char *const *eng_option_names(void)
{
	static const char *names[NOPTS + NTEXT + 1];
	static size_t n;

	/* the table's that hold a value, then the text ones; the tuning
	 * options that do nothing here are left out */
	if (n == 0) {
		for (size_t i = 0; i < NOPTS; i++)
			if (opts[i].index >= 0)
				names[n++] = opts[i].name;
		for (size_t i = 0; i < NTEXT; i++)
			names[n++] = textopts[i];
	}
	return names;
}

dtrace_optval_t eng_opt_get(const eng_hdl_t *h, int opt)
{
	if (opt < 0 || opt >= ENG_OPT_MAX)
		return DTRACEOPT_UNSET;
	return h->eh_opt[opt];
}

int eng_opt_isset(const eng_hdl_t *h, int opt)
{
	dtrace_optval_t v = eng_opt_get(h, opt);

	return v != DTRACEOPT_UNSET && v != 0;
}

int eng_opt_index(const char *name)
{
	const struct opt *o = name != NULL ? lookup(name) : NULL;

	return o != NULL && o->cls != XT ? o->index : -1;
}

dtrace_optval_t eng_xopt_get(const eng_hdl_t *h, int xopt)
{
	return xopt >= 0 && xopt < ENG_XOPT_MAX ? h->eh_xopt[xopt] :
	    DTRACEOPT_UNSET;
}
