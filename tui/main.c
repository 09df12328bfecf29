/*
 * main.c - dtui: argument parsing, the preloaded session, and the event
 * loop.  The loop waits for a key or the next engine deadline, lets the
 * session consume and sample, routes the key (to the prompt when it has
 * focus, else to the layout and the focused pane), acts on the flags the
 * handlers return, and draws once.
 *
 * Only main (and term.c's fatal-signal path) ends the process; the
 * terminal is given back before any exit after it was taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"
#include "tui.h"

#define MAX_PRELOAD 64

struct app {
	tui_model_t *m;
	tui_session_t *s;
	tui_layout_t *l;
	tui_surface_t *surf;
	tui_theme_t theme;
	char *clause;		/* multi-line clause typed so far */
	int quit;
	eng_proc_t *child;	/* -c command, NULL if none or exited */
	int child_held;		/* not yet let run */
	int child_out;		/* read end of the child's output */
	eng_proc_t *grabbed;	/* -p process while it lives, NULL if none */
};

static void usage(FILE *fp)
{
	fprintf(fp, "Usage: dtui [-qhV] [-n probe-description] [-s script] "
	    "[-c cmd] [-p pid]\n\t[-x opt[=val]] [-t theme] [-r experiment]\n");
}

static void history_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char dir[900];

	buf[0] = '\0';
	if (x != NULL && x[0] != '\0')
		snprintf(dir, sizeof(dir), "%s/dtui", x);
	else if (home != NULL)
		snprintf(dir, sizeof(dir), "%s/.local/share/dtui", home);
	else
		return;
	/* make the directory and its parents, as mkdir -p */
	for (char *p = dir + 1; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	}
	mkdir(dir, 0700);
	snprintf(buf, len, "%s/history", dir);
}

/* ---- the prompt's callbacks ------------------------------------------ */

static void clause_reset(struct app *a)
{
	free(a->clause);
	a->clause = NULL;
	tui_prompt_set_prompt("dtui> ");
}

static void run_command(struct app *a, const char *line)
{
	const char *theme;
	char err[512];

	if (strncmp(line, ":help", 5) == 0) {
		a->l->tl_help = 1;
		return;
	}
	if (tui_session_command(a->s, line) & TUI_QUIT) {
		a->quit = 1;
		return;
	}
	theme = tui_session_theme_req(a->s);
	if (theme[0] == '\0')
		return;
	if (tui_theme_load(&a->theme, theme, err, sizeof(err)) != 0) {
		tui_model_message(a->m, 1, "%s", err);
		return;
	}
	tui_term_theme(&a->theme);
	tui_model_message(a->m, 0, "theme %s", a->theme.tt_name);
}

/* After a clause that only aggregates, its results are in the
 * aggregations pane, not the (empty) output: show that one. */
static void show_aggs(struct app *a)
{
	if (!a->m->tm_showaggs)
		return;
	a->m->tm_showaggs = 0;
	for (int i = 0; i < TUI_NPANES; i++)
		if (strcmp(a->l->tl_panes[i]->tp_ops->name, "Aggregations") == 0)
			a->l->tl_last = i;
}

static void on_line(const char *line, void *arg)
{
	struct app *a = arg;
	size_t old = a->clause ? strlen(a->clause) : 0;
	char *c;


	if (a->clause == NULL && line[0] == ':') {
		tui_prompt_remember(line);
		run_command(a, line);
		return;
	}
	if (a->clause == NULL && line[strspn(line, " \t")] == '\0')
		return;
	if ((c = tui_realloc(a->clause, old + strlen(line) + 2)) == NULL)
		return;
	strcpy(c + old, line);
	strcat(c + old, "\n");
	a->clause = c;
	if (!tui_clause_complete(c)) {
		tui_prompt_set_prompt("  ...> ");
		return;
	}
	tui_prompt_remember(c);
	c[strlen(c) - 1] = '\0';
	free(a->m->tm_msg);
	a->m->tm_msg = NULL;
	tui_session_enable(a->s, c, 0, ENG_SPEC_NAME);
	show_aggs(a);
	clause_reset(a);
	a->m->tm_hint = -1;
}

static char **on_complete(const char *line, int start, int end, void *arg)
{
	struct app *a = arg;

	return tui_complete(line, start, end, &a->m->tm_probes,
	    tui_session_vocab());
}

/* The match count hint for the clause being typed. */
static void update_hint(struct app *a)
{
	const char *t = tui_prompt_text();
	char buf[4096];

	if ((a->clause == NULL && (t[0] == '\0' || t[0] == ':'))) {
		a->m->tm_hint = -1;
		return;
	}
	snprintf(buf, sizeof(buf), "%s%s", a->clause ? a->clause : "", t);
	a->m->tm_hint = tui_session_count(a->s, buf);
	if (a->m->tm_hint < 0)	/* the engine cannot parse it yet */
		a->m->tm_hint = tui_probes_count(&a->m->tm_probes, buf);
}

/* ---- -c: a child held until tracing starts ----------------------------- */

static int spawn(struct app *a, const char *cmd, char *err, size_t len)
{
	int out[2], fds[3];

	if (pipe2(out, O_CLOEXEC) != 0 ||
	    (fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "failed to run %s: %s", cmd,
		    strerror(errno));
		return -1;
	}
	fds[1] = fds[2] = out[1];
	a->child = eng_proc_create(cmd, ENG_PROC_SHELL, fds, err, len);
	close(fds[0]);
	close(out[1]);
	if (a->child == NULL) {
		close(out[0]);
		return -1;
	}
	a->child_held = 1;
	a->child_out = out[0];
	fcntl(a->child_out, F_SETFL, O_NONBLOCK);
	return 0;
}

/* -p: as dtrace(1M), tracing ends when the process does. */
static void target_poll(struct app *a)
{
	if (a->grabbed == NULL || a->m->tm_state != TUI_TRACING ||
	    eng_proc_poll(a->grabbed, NULL) != ENG_PROC_GONE)
		return;
	tui_session_stop(a->s);
	tui_model_message(a->m, 0, "pid %d has exited",
	    eng_proc_pid(a->grabbed));
	eng_proc_release(a->grabbed);
	a->grabbed = NULL;
}

/* Release the child once tracing runs; collect its output and exit. */
static void child_poll(struct app *a)
{
	char buf[4096];
	ssize_t n;

	if (a->child == NULL)
		return;
	if (a->child_held && a->m->tm_state == TUI_TRACING) {
		if (tui_session_continue(a->s, a->child) != 0)
			tui_model_message(a->m, 1, "failed to release pid %d",
			    eng_proc_pid(a->child));
		a->child_held = 0;
	}
	while ((n = read(a->child_out, buf, sizeof(buf))) > 0)
		tui_model_output(a->m, buf, (size_t)n, -1);
	switch (eng_proc_poll(a->child, NULL)) {
	case ENG_PROC_EXITED: case ENG_PROC_KILLED:
		tui_model_message(a->m, 0, "pid %d exited",
		    eng_proc_pid(a->child));
		eng_proc_release(a->child);
		a->child = NULL;
		tui_session_stop(a->s);
		break;
	default:
		break;
	}
}

/* ---- keys -------------------------------------------------------------- */

static int prompt_takes(struct app *a, uint32_t key)
{
	if (a->l->tl_focus >= 0 || a->l->tl_help || a->l->tl_confirm)
		return 0;
	switch (key) {
	case TUI_KEY_F1: case TUI_KEY_F10: case TUI_CTRL('c'): case TUI_KEY_ESC:
	case TUI_KEY_BTAB: case TUI_KEY_MOUSE: case TUI_KEY_RESIZE:
	case TUI_KEY_PGUP: case TUI_KEY_PGDN:
		return 0;
	case TUI_KEY_TAB:
		return a->clause != NULL || tui_prompt_text()[0] != '\0';
	default:
		return 1;
	}
}

static void act(struct app *a, unsigned f)
{
	tui_pane_t *p = a->l->tl_panes[a->l->tl_last];

	if (f & TUI_QUIT)
		a->quit = 1;
	if (f & TUI_STOP)
		tui_session_stop(a->s);
	if (f & TUI_PROBE_SEL) {
		char info[1024];

		tui_session_probe_info(a->s, tui_pane_probes_selected(p),
		    info, sizeof(info));
		tui_pane_probes_info(p, info);
	}
	if (f & TUI_ACTION)
		run_command(a, p->tp_action);
	if (f & TUI_INSERT) {
		free(a->m->tm_msg);	/* an old error is not about this */
		a->m->tm_msg = NULL;
		a->l->tl_focus = -1;
		tui_prompt_insert(p->tp_insert);
		tui_prompt_key(TUI_KEY_LEFT);
		tui_prompt_key(TUI_KEY_LEFT);
		update_hint(a);
	}
}

/* Handle key k; nonzero if the screen must be drawn again (the prompt
 * took it, or the layout or a pane answered TUI_REDRAW). */
static int key(struct app *a, uint32_t k, int mx, int my)
{
	int cols, rows, was;
	unsigned f;

	if (k == TUI_KEY_RESIZE) {
		tui_term_size(&cols, &rows);
		tui_layout_resize(a->l, cols, rows);
		tui_surface_resize(a->surf, cols, rows);
	}
	if (prompt_takes(a, k)) {
		tui_prompt_key(k);
		update_hint(a);
		return 1;
	}
	if (k == TUI_KEY_ESC && a->clause != NULL && a->l->tl_focus < 0) {
		clause_reset(a);	/* Esc abandons a multi-line clause, */
		tui_prompt_clear_line();	/* its line being typed too */
		a->m->tm_hint = -1;
		return 1;
	}
	was = a->l->tl_focus;
	f = tui_layout_key(a->l, k, mx, my, a->m);
	act(a, f);
	tui_session_pause(a->s, a->l->tl_paused);
	if (k == ':' && was >= 0 && a->l->tl_focus < 0) {
		tui_prompt_key(':');	/* ':' from a pane starts a command */
		return 1;
	}
	return (f & TUI_REDRAW) != 0 || k == TUI_KEY_RESIZE;
}

static void draw(struct app *a)
{
	tui_prompt_view_t pv;

	tui_prompt_view(&pv);
	pv.tpv_prev = a->clause;
	tui_layout_draw(a->l, a->surf, a->m, &pv);
	tui_term_draw(a->surf, a->l->tl_cur_x, a->l->tl_cur_y,
	    a->l->tl_focus < 0 && !a->l->tl_help);
}

static void loop(struct app *a)
{
	int ms = 0;

	draw(a);
	while (!a->quit && !tui_term_quit_requested()) {
		int mx = 0, my = 0;
		uint32_t k = tui_term_key(ms, tui_session_wakefd(a->s),
		    &mx, &my);
		int dirty = 0;

		while (k != TUI_KEY_NONE && !a->quit) {
			dirty |= key(a, k, mx, my);
			k = tui_term_key(0, -1, &mx, &my);
		}
		if (a->m->tm_state == TUI_TRACING || a->child != NULL) {
			ms = tui_session_tick(a->s);
			child_poll(a);
			target_poll(a);
			dirty |= !a->l->tl_paused;
		} else {
			ms = 1000;
		}
		if (dirty)
			draw(a);
	}
}

/* ---- start-up ------------------------------------------------------------ */

struct preload {
	char kind;		/* 'n' description, 's' script */
	const char *arg;
};

struct opts {
	struct preload pre[MAX_PRELOAD];
	int npre;
	const char *xopts[MAX_PRELOAD];
	int nx;
	const char *cmd, *theme;
	const char *replay;	/* -r experiment */
	int pid, quiet;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:c:p:r:x:qt:hV")) != -1) {
		switch (c) {
		case 'n': case 's':
			if (o->npre == MAX_PRELOAD)
				return -1;
			o->pre[o->npre].kind = (char)c;
			o->pre[o->npre++].arg = optarg;
			break;
		case 'x':
			if (o->nx == MAX_PRELOAD)
				return -1;
			o->xopts[o->nx++] = optarg;
			break;
		case 'c': o->cmd = optarg; break;
		case 'p': o->pid = atoi(optarg); break;
		case 'q': o->quiet = 1; break;
		case 'r': o->replay = optarg; break;
		case 't': o->theme = optarg; break;
		case 'V':
			printf("dtui: %s\n", ENG_VERSION_STRING);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

/* Options and preloaded clauses; errors are printed before the screen
 * is taken, as the dtrace command would print them. */
static int preload(struct app *a, const struct opts *o)
{
	char err[512];

	for (int i = 0; i < o->nx; i++) {
		char buf[256], *eq;

		snprintf(buf, sizeof(buf), "%s", o->xopts[i]);
		if ((eq = strchr(buf, '=')) != NULL)
			*eq++ = '\0';
		if (tui_session_setopt(a->s, buf, eq) != 0)
			return -1;
	}
	if (o->quiet && tui_session_setopt(a->s, "quiet", NULL) != 0)
		return -1;
	if (o->pid > 0) {
		if ((a->grabbed = eng_proc_grab(o->pid, err,
		    sizeof(err))) == NULL) {
			tui_model_message(a->m, 1, "%s", err);
			return -1;
		}
		tui_session_target(a->s, o->pid);
	}
	if (o->cmd != NULL) {
		if (spawn(a, o->cmd, err, sizeof(err)) != 0) {
			tui_model_message(a->m, 1, "%s", err);
			return -1;
		}
		tui_session_target(a->s, eng_proc_pid(a->child));
	}
	for (int i = 0; i < o->npre; i++) {
		int rc = o->pre[i].kind == 'n' ?
		    tui_session_enable(a->s, o->pre[i].arg, 1, ENG_SPEC_NAME) :
		    tui_session_enable_file(a->s, o->pre[i].arg);

		if (rc != 0)
			return -1;
	}
	return 0;
}

static void pick_theme(struct app *a, const char *name)
{
	char err[512];

	tui_theme_default(&a->theme);
	if (tui_theme_load(&a->theme, name ? name : "dark", err,
	    sizeof(err)) != 0) {
		if (name != NULL)
			fprintf(stderr, "dtui: %s\n", err);
		tui_theme_default(&a->theme);
	}
}

static int run(struct app *a, const struct opts *o)
{
	char hist[1024];
	int cols, rows;

	/* keys come from standard input: without a terminal there, the
	 * screen would wait forever for keys that never come (or read a
	 * file as keys).  Refused after the options, the experiment and
	 * the clauses were checked (their errors first, as dtrace's), and
	 * before the -c command is let run or the screen is drawn. */
	if (!isatty(0)) {
		fprintf(stderr, "dtui: standard input is not a terminal\n");
		return 1;
	}
	pick_theme(a, o->theme);
	history_path(hist, sizeof(hist));
	if (tui_term_open(&a->theme, &cols, &rows) != 0) {
		fprintf(stderr, "dtui: cannot use terminal type \"%s\"\n",
		    getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	if (tui_prompt_init(hist, on_line, on_complete, a) != 0 ||
	    (a->l = tui_layout_new()) == NULL ||
	    (a->surf = tui_surface_new(cols, rows)) == NULL) {
		tui_term_close();
		fprintf(stderr, "dtui: out of memory\n");
		return 1;
	}
	tui_layout_resize(a->l, cols, rows);
	loop(a);
	tui_prompt_fini();
	tui_term_close();
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct app a;
	char err[512];
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	a.child_out = -1;
	if (parse(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	if ((a.m = tui_model_new(20000)) == NULL ||
	    (a.s = tui_session_new(a.m, err, sizeof(err))) == NULL) {
		fprintf(stderr, "dtui: %s\n", a.m ? err : "out of memory");
		return 1;
	}
	if (o.replay != NULL && tui_session_replay(a.s, o.replay, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "dtui: failed to open experiment: %s\n", err);
		rc = 1;
	} else if (preload(&a, &o) != 0) {
		fprintf(stderr, "dtui: %s\n", a.m->tm_msg ? a.m->tm_msg :
		    "failed to start");
		rc = 1;
	} else {
		rc = run(&a, &o);
	}
	tui_session_stop(a.s);
	if (a.m->tm_nenabled >= 100 && isatty(2))	/* closing takes time */
		fprintf(stderr, "dtui: releasing %u probes\n", a.m->tm_nenabled);
	eng_proc_release(a.child);	/* killed if still there */
	eng_proc_release(a.grabbed);
	tui_session_free(a.s);
	tui_layout_free(a.l);
	tui_surface_free(a.surf);
	tui_model_free(a.m);
	free(a.clause);
	return rc;
}
