/*
 * theme.c - themes: each UI role mapped to colours for 256- and
 * 8-colour terminals plus attributes.  Theme files are untrusted input:
 * a bad line refuses the whole file with "file:line: rule", and the
 * theme in use is left unchanged (nothing is half-loaded).
 *
 * Format (one directive per line, '#' starts a comment):
 *   name <word>
 *   <role> [fg=C] [bg=C] [fg8=C8] [bg8=C8] [attr=A[,A...]]
 * C is 0-255, a colour name, or "default"; C8 is 0-7, a colour name or
 * "default"; A is bold, reverse, underline, dim or none.  Colour names:
 * black red green yellow blue magenta cyan white.  Roles a file does not
 * mention use the terminal's default colours and no attributes.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tui_view.h"

#define TUI_ROLE_NAME(e, s) s,
static const char *const role_names[TUI_NROLES] = { TUI_ROLES(TUI_ROLE_NAME) };

static const char *const colours[8] = { "black", "red", "green", "yellow",
    "blue", "magenta", "cyan", "white" };

const char *tui_role_name(int role)
{
	return role >= 0 && role < TUI_NROLES ? role_names[role] : "?";
}

static void set(tui_theme_t *t, int r, int fg, int bg, int fg8, int bg8,
    unsigned attr)
{
	t->tt_roles[r] = (tui_style_t){ fg, bg, fg8, bg8, attr };
}

/* The built-in dark theme, used when no theme file is found. */
void tui_theme_default(tui_theme_t *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->tt_name, sizeof(t->tt_name), "builtin");
	for (int r = 0; r < TUI_NROLES; r++)
		set(t, r, -1, -1, -1, -1, 0);
	set(t, TUI_R_STATUS, 231, 24, 7, 4, TUI_A_BOLD);
	set(t, TUI_R_TAB, 250, 236, 7, 0, 0);
	set(t, TUI_R_TAB_SEL, 16, 214, 0, 3, TUI_A_BOLD);
	set(t, TUI_R_TITLE, 117, -1, 6, -1, TUI_A_BOLD);
	set(t, TUI_R_SELECT, 16, 152, 0, 6, 0);
	set(t, TUI_R_CPU, 244, -1, 4, -1, 0);
	set(t, TUI_R_PROMPT, 214, -1, 3, -1, TUI_A_BOLD);
	set(t, TUI_R_ERROR, 203, -1, 1, -1, TUI_A_BOLD);
	set(t, TUI_R_WARN, 221, -1, 3, -1, 0);
	set(t, TUI_R_BAR, 77, -1, 2, -1, 0);
	set(t, TUI_R_MARK, 213, -1, 5, -1, TUI_A_BOLD);
	set(t, TUI_R_COUNT, 252, -1, 7, -1, 0);
	set(t, TUI_R_KEY, 180, -1, 3, -1, 0);
	set(t, TUI_R_DROP, 203, -1, 1, -1, TUI_A_BOLD);
	set(t, TUI_R_SPARK, 209, -1, 1, -1, 0);
	set(t, TUI_R_HEAT_LO, 24, -1, 4, -1, 0);
	set(t, TUI_R_HEAT_MID, 142, -1, 3, -1, 0);
	set(t, TUI_R_HEAT_HI, 203, -1, 1, -1, TUI_A_BOLD);
	set(t, TUI_R_MATCH, 16, 220, 0, 3, 0);
	set(t, TUI_R_HELP, 252, 236, 7, 4, 0);
	set(t, TUI_R_DIM, 243, -1, -1, -1, TUI_A_DIM);
}

/* Attributes only, for NO_COLOR and terminals without colour. */
void tui_theme_mono(tui_theme_t *t)
{
	static const struct { int role; unsigned attr; } a[] = {
		{ TUI_R_STATUS, TUI_A_REVERSE }, { TUI_R_TAB_SEL, TUI_A_REVERSE },
		{ TUI_R_TITLE, TUI_A_BOLD }, { TUI_R_SELECT, TUI_A_REVERSE },
		{ TUI_R_PROMPT, TUI_A_BOLD }, { TUI_R_ERROR, TUI_A_BOLD },
		{ TUI_R_WARN, TUI_A_BOLD }, { TUI_R_MARK, TUI_A_UNDERLINE },
		{ TUI_R_DROP, TUI_A_BOLD }, { TUI_R_MATCH, TUI_A_REVERSE },
		{ TUI_R_HEAT_HI, TUI_A_BOLD }, { TUI_R_DIM, TUI_A_DIM },
		{ TUI_R_HELP, TUI_A_REVERSE },
	};

	memset(t, 0, sizeof(*t));
	snprintf(t->tt_name, sizeof(t->tt_name), "monochrome");
	for (int r = 0; r < TUI_NROLES; r++)
		set(t, r, -1, -1, -1, -1, 0);
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		t->tt_roles[a[i].role].ts_attr = a[i].attr;
}

static int find_role(const char *w)
{
	for (int r = 0; r < TUI_NROLES; r++)
		if (strcmp(role_names[r], w) == 0)
			return r;
	return -1;
}

/* A colour value: number up to max, name, or default (-1). */
static int colour(const char *v, int max, int *out)
{
	char *end;
	long n;

	if (strcmp(v, "default") == 0) {
		*out = -1;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		if (strcmp(v, colours[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	if (!isdigit((unsigned char)v[0]))
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < 0 || n > max)
		return -1;
	*out = (int)n;
	return 0;
}

static int attrs(char *v, unsigned *out)
{
	char *save = NULL;

	*out = 0;
	for (char *a = strtok_r(v, ",", &save); a != NULL;
	    a = strtok_r(NULL, ",", &save)) {
		if (strcmp(a, "bold") == 0)
			*out |= TUI_A_BOLD;
		else if (strcmp(a, "reverse") == 0)
			*out |= TUI_A_REVERSE;
		else if (strcmp(a, "underline") == 0)
			*out |= TUI_A_UNDERLINE;
		else if (strcmp(a, "dim") == 0)
			*out |= TUI_A_DIM;
		else if (strcmp(a, "none") != 0)
			return -1;
	}
	return 0;
}

/* One "key=value" of a role line; returns the rule broken, or NULL. */
static const char *setting(tui_style_t *st, char *w)
{
	char *v = strchr(w, '=');

	if (v == NULL)
		return "expected key=value (fg, bg, fg8, bg8, attr)";
	*v++ = '\0';
	if (strcmp(w, "fg") == 0)
		return colour(v, 255, &st->ts_fg256) ? "colour must be 0-255,"
		    " a colour name or default" : NULL;
	if (strcmp(w, "bg") == 0)
		return colour(v, 255, &st->ts_bg256) ? "colour must be 0-255,"
		    " a colour name or default" : NULL;
	if (strcmp(w, "fg8") == 0)
		return colour(v, 7, &st->ts_fg8) ? "8-colour value must be "
		    "0-7, a colour name or default" : NULL;
	if (strcmp(w, "bg8") == 0)
		return colour(v, 7, &st->ts_bg8) ? "8-colour value must be "
		    "0-7, a colour name or default" : NULL;
	if (strcmp(w, "attr") == 0)
		return attrs(v, &st->ts_attr) ? "attr must be bold, reverse, "
		    "underline, dim or none" : NULL;
	return "unknown key (fg, bg, fg8, bg8, attr)";
}

/* One line into t; returns the rule broken (and the word breaking it
 * in bad, up to 40 characters), or NULL. */
static const char *parse_line(tui_theme_t *t, char *line, char bad[41])
{
	char *w = strtok(line, " \t"), *v;
	tui_style_t st;
	int r;

	if (w == NULL || w[0] == '#')
		return NULL;
	if (strcmp(w, "name") == 0) {
		if ((v = strtok(NULL, " \t")) == NULL || strtok(NULL, " \t"))
			return "name takes one word";
		snprintf(t->tt_name, sizeof(t->tt_name), "%s", v);
		return NULL;
	}
	snprintf(bad, 41, "%s", w);
	if ((r = find_role(w)) < 0)
		return "unknown role";
	st = t->tt_roles[r];
	while ((v = strtok(NULL, " \t")) != NULL && v[0] != '#') {
		const char *why;

		snprintf(bad, 41, "%s", v);
		why = setting(&st, v);

		if (why != NULL)
			return why;
	}
	t->tt_roles[r] = st;
	return NULL;
}

int tui_theme_parse(tui_theme_t *t, const char *text, const char *file,
    char *err, size_t errlen)
{
	tui_theme_t nt = *t;
	int lineno = 0;

	while (*text != '\0') {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		char line[512], words[512], bad[41] = "";
		const char *why = NULL;

		lineno++;
		if (n >= sizeof(line)) {
			why = "line longer than 511 characters";
		} else {
			memcpy(line, text, n);
			line[n] = '\0';
			for (size_t i = 0; i < n && why == NULL; i++)
				if ((unsigned char)line[i] < ' ' &&
				    line[i] != '\t' && line[i] != '\r')
					why = "control character";
			if (n > 0 && line[n - 1] == '\r')
				line[n - 1] = '\0';
			memcpy(words, line, n + 1);
			if (why == NULL)
				why = parse_line(&nt, words, bad);
		}
		if (why != NULL) {
			snprintf(err, errlen, "%s:%d: %s%s%s%s", file, lineno,
			    why, bad[0] ? " (\"" : "", bad, bad[0] ? "\")" : "");
			return -1;
		}
		text += n + (nl != NULL);
	}
	*t = nt;
	return 0;
}

/* The directory holding the running binary, into buf. */
static int exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (strrchr(buf, '/') != NULL)
		*strrchr(buf, '/') = '\0';
	return 0;
}

/* Candidate paths for theme NAME, in order: $DTUI_THEMEDIR, the user's
 * config, the source tree next to the binary (build/dtui), the install
 * tree next to the binary (PREFIX/bin/dtui), /usr/share.  Returns 1 with
 * a path, 0 to skip this candidate, -1 past the last. */
static int theme_path(const char *name, int i, char *buf, size_t len)
{
	const char *env;
	char exe[PATH_MAX];

	switch (i) {
	case 0:
		if ((env = getenv("DTUI_THEMEDIR")) == NULL)
			return 0;
		return snprintf(buf, len, "%s/%s", env, name), 1;
	case 1:
		if ((env = getenv("XDG_CONFIG_HOME")) != NULL)
			return snprintf(buf, len, "%s/dtui/themes/%s", env,
			    name), 1;
		if ((env = getenv("HOME")) == NULL)
			return 0;
		return snprintf(buf, len, "%s/.config/dtui/themes/%s", env,
		    name), 1;
	case 2:
	case 3:
		if (exe_dir(exe, sizeof(exe)) != 0)
			return 0;
		return snprintf(buf, len, "%s/../%s/%s", exe, i == 2 ?
		    "themes" : "share/dtui/themes", name), 1;
	case 4:
		return snprintf(buf, len, "/usr/share/dtui/themes/%s", name), 1;
	default:
		return -1;
	}
}

static int load_file(tui_theme_t *t, const char *path, char *err,
    size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char *text;
	size_t n;
	int rc;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = tui_malloc(65537);
	if (text == NULL) {
		fclose(fp);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	n = fread(text, 1, 65536, fp);
	text[n] = '\0';
	fclose(fp);
	if (n == 65536 || memchr(text, '\0', n) != NULL) {
		free(text);
		snprintf(err, errlen, "%s: not a theme file (binary or over "
		    "64KB)", path);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	snprintf(t->tt_name, sizeof(t->tt_name), "unnamed");
	for (int r = 0; r < TUI_NROLES; r++)
		set(t, r, -1, -1, -1, -1, 0);
	rc = tui_theme_parse(t, text, path, err, errlen);
	free(text);
	return rc;
}

int tui_theme_load(tui_theme_t *t, const char *name, char *err,
    size_t errlen)
{
	char path[PATH_MAX + 64];
	tui_theme_t nt;
	int r;

	if (strchr(name, '/') != NULL) {
		if (load_file(&nt, name, err, errlen) != 0)
			return -1;
		*t = nt;
		return 0;
	}
	for (int i = 0; (r = theme_path(name, i, path, sizeof(path))) >= 0;
	    i++) {
		if (r == 0 || access(path, R_OK) != 0)
			continue;
		if (load_file(&nt, path, err, errlen) != 0)
			return -1;
		*t = nt;
		return 0;
	}
	snprintf(err, errlen, "theme \"%s\" not found (themes/, "
	    "$DTUI_THEMEDIR, ~/.config/dtui/themes)", name);
	return -1;
}
