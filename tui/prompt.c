/*
 * prompt.c - the prompt's line editor: GNU readline or libedit behind one
 * small interface (tui.h, "prompt").  configure defines TUI_PROMPT_READLINE
 * or TUI_PROMPT_LIBEDIT.  Either way curses keeps the screen: the library
 * reads keys we queue, writes its own display to /dev/null, and layout.c
 * draws the line and cursor it reports.
 *
 *   keys from term.c -> byte queue -> the library's getc hook ->
 *     readline: rl_callback_read_char (the alternate interface)
 *     libedit:  el_gets in unbuffered mode (its native interface, whose
 *               el_line() reports buffer and cursor; its readline
 *               emulation does not keep rl_line_buffer/rl_point current)
 *
 * Special keys arrive as tui_key codes and are queued as the ANSI
 * sequences both libraries bind by default.  The library's input stream
 * is a private pseudo-terminal nobody writes to (libedit only edits on a
 * terminal; readline's type-ahead check must never see input there).
 * History is read from and appended to a file; history entries are
 * untrusted, and lines with control characters are skipped on loading.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef TUI_PROMPT_LIBEDIT
#include <histedit.h>
#else
#include <readline/readline.h>
#include <readline/history.h>
#endif
#include "tui_term.h"

#define QMAX 64

static struct {
	unsigned char q[QMAX];	/* bytes waiting for the library */
	int head, n;
	FILE *devnull;		/* where the library's own output goes */
	FILE *quiet;		/* its input stream, never written */
	FILE *ttyout;		/* libedit's output: the same terminal */
	int quiet_w;		/* the other end, drained and closed */
	char histfile[1024];
	tui_prompt_line_f *line_cb;
	tui_prompt_complete_f *comp_cb;
	void *arg;
	char *matches;		/* completion list to show, or NULL */
	char prompt[64];
	int active;
#ifdef TUI_PROMPT_LIBEDIT
	EditLine *el;
	History *hist;
	char line[4096];	/* el_line's text, NUL-terminated */
#endif
} P;

static int qpop(void)
{
	int c;

	if (P.n == 0)
		return EOF;
	c = P.q[P.head];
	P.head = (P.head + 1) % QMAX;
	P.n--;
	return c;
}

static void push(const char *bytes, size_t n)
{
	for (size_t i = 0; i < n && P.n < QMAX; i++) {
		P.q[(P.head + P.n) % QMAX] = (unsigned char)bytes[i];
		P.n++;
	}
}

static void deliver(char *line)
{
	if (line == NULL)	/* Ctrl-D on an empty line */
		line = tui_strdup(":quit");
	if (line == NULL)
		return;
	P.line_cb(line, P.arg);
	free(line);
}

/* Completion lists are shown under the prompt, not printed. */
static void show_matches(char **m, int n)
{
	size_t len = 0;

	free(P.matches);
	P.matches = NULL;
	for (int i = 0; i < n; i++)
		len += strlen(m[i]) + 2;
	if (len > 4000)
		len = 4000;
	if ((P.matches = tui_malloc(len + 1)) == NULL)
		return;
	P.matches[0] = '\0';
	for (int i = 0, used = 0; i < n; i++) {
		size_t k = strlen(m[i]);

		if (used + k + 2 > len)
			break;
		memcpy(P.matches + used, m[i], k);
		memcpy(P.matches + used + k, "  ", 3);
		used += (int)k + 2;
	}
}

/* Matches for the word at [start, end) of line, with the longest common
 * prefix in *lcd (malloc'd); alternatives go under the prompt. */
static char **matches(const char *line, int start, int end, char **lcd)
{
	char **m = P.comp_cb(line, start, end, P.arg);
	size_t n = 0, k;

	*lcd = NULL;
	if (m == NULL || m[0] == NULL) {
		free(m);
		return NULL;
	}
	while (m[n] != NULL)
		n++;
	k = strlen(m[0]);
	for (size_t i = 1; i < n; i++)
		for (size_t j = 0; j < k; j++)
			if (m[i][j] != m[0][j]) {
				k = j;
				break;
			}
	if (n > 1)
		show_matches(m, (int)n);
	*lcd = tui_strndup(m[0], k);
	return m;
}

static void free_list(char **m)
{
	for (int i = 0; m != NULL && m[i] != NULL; i++)
		free(m[i]);
	free(m);
}

/* ---- readline ------------------------------------------------------------ */
#ifndef TUI_PROMPT_LIBEDIT

static int rl_qgetc(FILE *fp)
{
	return qpop();
}

static void redisplay(void)
{
}

static void prep(int meta)
{
}

static void deprep(void)
{
}

static void on_line(char *line)
{
	deliver(line);
}

/* Words end at D punctuation, or in probe descriptions only at blanks
 * and separators (complete.c decides). */
static char *breaks(void)
{
	return (char *)tui_complete_breaks(rl_line_buffer, rl_point);
}

/* readline wants [0] to be the replacement text, the matches after it. */
static char **complete(const char *text, int start, int end)
{
	char *lcd, **m, **r;
	size_t n = 0;

	rl_attempted_completion_over = 1;
	rl_completion_append_character = '\0';
	if ((m = matches(rl_line_buffer, start, end, &lcd)) == NULL)
		return NULL;
	while (m[n] != NULL)
		n++;
	if (lcd == NULL || (r = tui_malloc((n + 2) * sizeof(*r))) == NULL) {
		free(lcd);
		free_list(m);
		return NULL;
	}
	r[0] = lcd;
	memcpy(r + 1, m, (n + 1) * sizeof(*r));
	free(m);
	if (n == 1) {		/* one match: it is the replacement */
		free(r[1]);
		r[1] = NULL;
	}
	return r;
}

static int be_init(void)
{
	rl_instream = P.quiet;
	rl_outstream = P.devnull;
	rl_getc_function = rl_qgetc;
	rl_redisplay_function = redisplay;
	rl_prep_term_function = prep;
	rl_deprep_term_function = deprep;
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = complete;
	rl_completion_word_break_hook = breaks;
	rl_callback_handler_install(P.prompt, on_line);
	using_history();
	return 0;
}

static void be_fini(void)
{
	rl_callback_handler_remove();
}

static void be_feed(void)
{
	while (P.n > 0)
		rl_callback_read_char();
}

static const char *be_line(int *point)
{
	*point = rl_point;
	return rl_line_buffer ? rl_line_buffer : "";
}

static void be_insert(const char *text)
{
	rl_insert_text(text);
}

static void be_prompt(void)
{
	rl_set_prompt(P.prompt);
}

/* Add an entry and move the history position past it, so Up recalls
 * it (add_history alone leaves the position where it was). */
static void be_history(const char *text)
{
	add_history(text);
	using_history();
}

/* ---- libedit --------------------------------------------------------------- */
#else

static int el_qgetc(EditLine *el, wchar_t *wc)
{
	int c = qpop(), n, v;

	if (c == EOF)
		return 0;
	/* reassemble UTF-8: term.c queued whole sequences */
	n = c < 0x80 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
	v = n == 0 ? c : c & (0x3f >> n);
	while (n-- > 0 && P.n > 0)
		v = v << 6 | (qpop() & 0x3f);
	*wc = (wchar_t)v;
	return 1;
}

static char *el_prompt(EditLine *el)
{
	return P.prompt;
}

static unsigned char el_complete(EditLine *el, int ch)
{
	const LineInfo *li = el_line(el);
	int end = (int)(li->cursor - li->buffer), start = end;
	char line[4096], *lcd, **m;

	snprintf(line, sizeof(line), "%.*s", (int)(li->lastchar - li->buffer),
	    li->buffer);
	if (end >= (int)sizeof(line))
		return CC_ERROR;
	while (start > 0 &&
	    strchr(tui_complete_breaks(line, end), line[start - 1]) == NULL)
		start--;
	if ((m = matches(line, start, end, &lcd)) == NULL)
		return CC_REFRESH_BEEP;
	if (lcd != NULL && (int)strlen(lcd) >= end - start) {
		el_deletestr(el, end - start);
		el_insertstr(el, lcd);
	}
	free(lcd);
	free_list(m);
	return CC_REFRESH;
}

static int be_init(void)
{
	HistEvent ev;

	/* libedit edits only when its output is a terminal too: give it
	 * the private one, drained after each key (drain()) */
	P.ttyout = fdopen(dup(fileno(P.quiet)), "w");
	P.el = el_init("dtui", P.quiet, P.ttyout ? P.ttyout : P.devnull,
	    P.devnull);
	P.hist = history_init();
	if (P.el == NULL || P.hist == NULL)
		return -1;
	history(P.hist, &ev, H_SETSIZE, 1000);
	el_set(P.el, EL_EDITOR, "emacs");
	el_set(P.el, EL_SIGNAL, 0);
	el_set(P.el, EL_HIST, history, P.hist);
	el_set(P.el, EL_PROMPT, el_prompt);
	el_set(P.el, EL_GETCFN, el_qgetc);
	el_set(P.el, EL_ADDFN, "dtui-complete", "complete", el_complete);
	el_set(P.el, EL_BIND, "^I", "dtui-complete", NULL);
	el_set(P.el, EL_UNBUFFERED, 1);
	return 0;
}

static void be_fini(void)
{
	el_end(P.el);
	history_end(P.hist);
	if (P.ttyout != NULL)
		fclose(P.ttyout);
}

static void be_feed(void)
{
	while (P.n > 0) {
		int count = 0;
		const char *buf = el_gets(P.el, &count);

		if (buf == NULL || count <= 0)
			continue;
		if (buf[count - 1] != '\n' && buf[count - 1] != '\r')
			continue;
		char *line = tui_strndup(buf, count - 1);

		/* leaving and re-entering unbuffered mode starts a new line */
		el_set(P.el, EL_UNBUFFERED, 0);
		deliver(line);
		el_set(P.el, EL_UNBUFFERED, 1);
	}
}

static const char *be_line(int *point)
{
	const LineInfo *li = el_line(P.el);
	int n = (int)(li->lastchar - li->buffer);

	if (n >= (int)sizeof(P.line))
		n = sizeof(P.line) - 1;
	memcpy(P.line, li->buffer, n);
	P.line[n] = '\0';
	*point = (int)(li->cursor - li->buffer);
	return P.line;
}

static void be_insert(const char *text)
{
	el_insertstr(P.el, text);
}

static void be_prompt(void)
{
}

static void be_history(const char *text)
{
	HistEvent ev;

	history(P.hist, &ev, H_ENTER, text);
}
#endif

/* ---- the interface -------------------------------------------------------- */

/*
 * The library's input stream: a pseudo-terminal where we can get one,
 * a pipe otherwise; nothing is ever written to it.  fds[1] is the end
 * to close at the finish.
 */
static int quiet_stream(int fds[2])
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	char *name;

	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 &&
	    (name = ptsname(m)) != NULL &&
	    (s = open(name, O_RDWR | O_NOCTTY)) >= 0) {
		if ((P.quiet = fdopen(s, "r")) != NULL) {
			fcntl(m, F_SETFL, O_NONBLOCK);
			fds[1] = m;
			return 0;
		}
		close(s);
	}
	if (m >= 0)
		close(m);
	if (pipe(fds) != 0)
		return -1;
	if ((P.quiet = fdopen(fds[0], "r")) == NULL) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	return 0;
}

/* Throw away what the library displayed on its private terminal, so
 * its writes never block on a full buffer. */
static void drain(void)
{
	char buf[4096];

	while (read(P.quiet_w, buf, sizeof(buf)) > 0)
		;
}

static void load_history(void)
{
	FILE *fp = fopen(P.histfile, "r");
	char buf[4096];

	if (fp == NULL)
		return;
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		size_t n = strlen(buf);
		int ok = 1;

		if (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		for (size_t i = 0; i < n; i++)
			ok &= (unsigned char)buf[i] >= ' ' || buf[i] == '\t';
		if (ok && n > 0)
			be_history(buf);
	}
	fclose(fp);
}

int tui_prompt_init(const char *histfile, tui_prompt_line_f *cb,
    tui_prompt_complete_f *comp, void *arg)
{
	int fds[2];

	P.line_cb = cb;
	P.comp_cb = comp;
	P.arg = arg;
	snprintf(P.histfile, sizeof(P.histfile), "%s", histfile ? histfile : "");
	snprintf(P.prompt, sizeof(P.prompt), "dtui> ");
	if ((P.devnull = fopen("/dev/null", "w+")) == NULL)
		return -1;
	if (quiet_stream(fds) != 0) {
		fclose(P.devnull);
		return -1;
	}
	P.quiet_w = fds[1];
	if (be_init() != 0)
		return -1;
	load_history();
	P.active = 1;
	return 0;
}

void tui_prompt_fini(void)
{
	if (!P.active)
		return;
	be_fini();
	fclose(P.devnull);
	fclose(P.quiet);
	close(P.quiet_w);
	free(P.matches);
	P.matches = NULL;
	P.active = 0;
}

static const char *sequence(uint32_t key)
{
	switch (key) {
	case TUI_KEY_UP: return "\033[A";
	case TUI_KEY_DOWN: return "\033[B";
	case TUI_KEY_RIGHT: return "\033[C";
	case TUI_KEY_LEFT: return "\033[D";
	case TUI_KEY_HOME: return "\001";
	case TUI_KEY_END: return "\005";
	case TUI_KEY_DEL: return "\033[3~";
	case TUI_KEY_BS: return "\177";
	case TUI_KEY_ENTER: return "\n";
	default: return NULL;
	}
}

/* Feed a key to the editor; returns 1 when it was taken. */
int tui_prompt_key(uint32_t key)
{
	char buf[8];
	const char *seq = sequence(key);
	size_t n;

	if (seq != NULL) {
		n = strlen(seq);
		memcpy(buf, seq, n);
	} else if (key < 0x80) {
		buf[0] = (char)key;
		n = 1;
	} else if (key < 0x800) {
		buf[0] = (char)(0xc0 | key >> 6);
		buf[1] = (char)(0x80 | (key & 0x3f));
		n = 2;
	} else if (key < 0x10000) {
		buf[0] = (char)(0xe0 | key >> 12);
		buf[1] = (char)(0x80 | (key >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (key & 0x3f));
		n = 3;
	} else {
		return 0;
	}
	if (key != '\t')
		tui_prompt_clear_matches();
	push(buf, n);
	be_feed();
	drain();
	return 1;
}

void tui_prompt_view(tui_prompt_view_t *pv)
{
	pv->tpv_prompt = P.prompt;
	pv->tpv_line = be_line(&pv->tpv_point);
	pv->tpv_matches = P.matches;
}

/* Empty the line being edited (start of line, kill to its end: the same
 * keys in readline and libedit). */
void tui_prompt_clear_line(void)
{
	tui_prompt_key(TUI_CTRL('a'));
	tui_prompt_key(TUI_CTRL('k'));
}

void tui_prompt_insert(const char *text)
{
	be_insert(text);
}

/* Change the prompt string (multi-line clauses use a continuation one). */
void tui_prompt_set_prompt(const char *prompt)
{
	snprintf(P.prompt, sizeof(P.prompt), "%s", prompt);
	be_prompt();
}

const char *tui_prompt_text(void)
{
	int point;

	return be_line(&point);
}

void tui_prompt_clear_matches(void)
{
	free(P.matches);
	P.matches = NULL;
}

/* Record a finished entry in memory and in the history file (one line
 * per entry: the newlines of a multi-line clause become spaces). */
void tui_prompt_remember(const char *text)
{
	char *one = tui_strdup(text);
	size_t n;
	FILE *fp;

	if (one == NULL)
		return;
	for (char *t = one; *t != '\0'; t++)
		if (*t == '\n' || *t == '\r')
			*t = ' ';
	n = strlen(one);
	while (n > 0 && one[n - 1] == ' ')
		one[--n] = '\0';
	if (n > 0) {
		be_history(one);
		if (P.histfile[0] != '\0' &&
		    (fp = fopen(P.histfile, "a")) != NULL) {
			fprintf(fp, "%s\n", one);
			fclose(fp);
		}
	}
	free(one);
}
