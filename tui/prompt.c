/*
 * prompt.c - the prompt's line editor: GNU readline or libedit behind one
 * small interface (tui.h, "prompt").  configure defines TUI_PROMPT_READLINE
 * or TUI_PROMPT_LIBEDIT; both offer readline's alternate interface, which
 * is what we use so that curses keeps the screen:
 *
 *   keys from term.c -> a queue -> rl_getc_function -> rl_callback_read_char
 *   rl_redisplay_function does nothing; layout.c draws rl_line_buffer and
 *   rl_point itself; output that the library would write goes to /dev/null.
 *
 * Special keys (arrows, Home, Del...) arrive as tui_key codes and are fed
 * as the ANSI sequences both libraries bind by default.  History is read
 * from and appended to a file (history entries are untrusted: lines with
 * control characters are skipped when loading).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#ifdef TUI_PROMPT_LIBEDIT
#include <editline/readline.h>
#else
#include <readline/readline.h>
#include <readline/history.h>
#endif
#include "tui.h"

/* libedit declares its hooks as void (*)(void); cast through the
 * generic function pointer type, which is how it calls them anyway. */
#ifdef TUI_PROMPT_LIBEDIT
#define HOOK(f) ((VFunction *)(void (*)(void))(f))
#else
#define HOOK(f) (f)
#endif

#define QMAX 64

static struct {
	unsigned char q[QMAX];
	int head, n;
	FILE *devnull;		/* where the library's own output goes */
	FILE *quiet;		/* its input stream: a pipe never written,
				 * so type-ahead checks see nothing pending */
	int quiet_w;
	char histfile[1024];
	tui_prompt_line_f *line_cb;
	tui_prompt_complete_f *comp_cb;
	void *arg;
	char *matches;		/* completion list to show, or NULL */
	char prompt[64];
	int active;
} P;

static int qgetc(FILE *fp)
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
	if (line == NULL)	/* Ctrl-D on an empty line */
		line = strdup(":quit");
	if (line == NULL)
		return;
	P.line_cb(line, P.arg);
	free(line);
}

/* Remember a finished clause or command in memory and in the file. */
static void remember(const char *text)
{
	FILE *fp;

	if (text[0] == '\0')
		return;
	add_history(text);
	if (P.histfile[0] == '\0' || (fp = fopen(P.histfile, "a")) == NULL)
		return;
	for (const char *t = text; *t != '\0'; t++)	/* one line per entry */
		fputc(*t == '\n' ? ' ' : *t, fp);
	fputc('\n', fp);
	fclose(fp);
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
			add_history(buf);
	}
	fclose(fp);
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
	if ((P.matches = malloc(len + 1)) == NULL)
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

/* readline wants matches[0] to be the text that replaces the word: the
 * longest common prefix of the matches, which follow it. */
static char **with_prefix(char **m)
{
	size_t n = 0, lcd;
	char **r;

	while (m[n] != NULL)
		n++;
	lcd = strlen(m[0]);
	for (size_t i = 1; i < n; i++)
		for (size_t k = 0; k < lcd; k++)
			if (m[i][k] != m[0][k]) {
				lcd = k;
				break;
			}
	if (n == 1)
		return m;
	if ((r = malloc((n + 2) * sizeof(*r))) == NULL ||
	    (r[0] = strndup(m[0], lcd)) == NULL) {
		free(r);
		for (size_t i = 0; i < n; i++)
			free(m[i]);
		free(m);
		return NULL;
	}
	memcpy(r + 1, m, (n + 1) * sizeof(*r));
	free(m);
	return r;
}

static char **complete(const char *text, int start, int end)
{
	char **m;

	rl_attempted_completion_over = 1;
	rl_completion_append_character = '\0';
	m = P.comp_cb(rl_line_buffer, start, end, P.arg);
	if (m == NULL || m[0] == NULL) {
		free(m);
		return NULL;
	}
	if (m[1] != NULL) {	/* the list shows under the prompt */
		int n = 0;

		while (m[n] != NULL)
			n++;
		show_matches(m, n);
	}
	return with_prefix(m);
}

/*
 * The library's input stream: never written, so type-ahead checks see
 * nothing pending.  A pseudo-terminal where we can get one, because
 * libedit turns editing off when its input is not a terminal; a pipe
 * otherwise.  fds[1] is what to close at the end.
 */
static int quiet_stream(int fds[2])
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	char *name;

	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 &&
	    (name = ptsname(m)) != NULL &&
	    (s = open(name, O_RDWR | O_NOCTTY)) >= 0) {
		if ((P.quiet = fdopen(s, "r")) != NULL) {
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
	rl_instream = P.quiet;
	rl_outstream = P.devnull;
	rl_getc_function = qgetc;
	rl_redisplay_function = HOOK(redisplay);
	rl_prep_term_function = HOOK(prep);
	rl_deprep_term_function = HOOK(deprep);
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters =
	    (char *)" \t\n\"\\'`@$><=;|&{}()/,*+-!%^~[]";
	rl_callback_handler_install(P.prompt, on_line);
	using_history();
	load_history();
	P.active = 1;
	return 0;
}

void tui_prompt_fini(void)
{
	if (!P.active)
		return;
	rl_callback_handler_remove();
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
	case TUI_KEY_DEL: return "\004";
	case TUI_KEY_BS: return "\177";
	case TUI_KEY_ENTER: return "\r";
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
	if (key != '\t') {
		free(P.matches);
		P.matches = NULL;
	}
	push(buf, n);
	while (P.n > 0)
		rl_callback_read_char();
	return 1;
}

void tui_prompt_view(tui_prompt_view_t *pv)
{
	pv->tpv_prompt = P.prompt;
	pv->tpv_line = rl_line_buffer ? rl_line_buffer : "";
	pv->tpv_point = rl_point;
	pv->tpv_matches = P.matches;
}

void tui_prompt_insert(const char *text)
{
	rl_insert_text(text);
}

/* Change the prompt string (multi-line clauses use a continuation one). */
void tui_prompt_set_prompt(const char *prompt)
{
	snprintf(P.prompt, sizeof(P.prompt), "%s", prompt);
	rl_set_prompt(P.prompt);
}

const char *tui_prompt_text(void)
{
	return rl_line_buffer ? rl_line_buffer : "";
}

void tui_prompt_clear_matches(void)
{
	free(P.matches);
	P.matches = NULL;
}

/* Record a finished entry in the history (memory and file). */
void tui_prompt_remember(const char *text)
{
	remember(text);
}
