/*
 * term.c - the terminal: the only file in dtui that calls curses.  It
 * turns a tui_surface into screen cells, maps roles to colours through
 * the theme, reads keys and mouse clicks, and handles resize.
 *
 * The terminal is restored on every path: tui_term_close on normal and
 * error exits; SIGTERM/SIGHUP ask the loop to quit (tui_term_quit_
 * requested); fatal signals restore and then re-raise with the default
 * action.  While curses owns the screen, stderr goes to a temporary file
 * that is replayed when the terminal is given back.
 */
#include <curses.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "tui_term.h"

static struct {
	int open;
	int colour;		/* colours in use (not NO_COLOR, has_colors) */
	int utf8;		/* the locale can show non-ASCII glyphs */
	int saved_err;		/* the real stderr while curses runs */
	FILE *errtmp;
	attr_t attrs[TUI_NROLES];
	short pairs[TUI_NROLES];
} T = { .saved_err = -1 };

static volatile sig_atomic_t quit_req;

static void restore_stderr(int replay)
{
	char buf[4096];
	size_t n;

	if (T.saved_err < 0)
		return;
	fflush(stderr);
	dup2(T.saved_err, 2);
	close(T.saved_err);
	T.saved_err = -1;
	if (T.errtmp == NULL)
		return;
	if (replay) {
		rewind(T.errtmp);
		while ((n = fread(buf, 1, sizeof(buf), T.errtmp)) > 0)
			fwrite(buf, 1, n, stderr);
	}
	fclose(T.errtmp);
	T.errtmp = NULL;
}

static void fatal(int sig)
{
	if (T.open) {
		endwin();
		T.open = 0;
	}
	restore_stderr(0);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void asked_to_quit(int sig)
{
	quit_req = 1;
}

static void signals(void)
{
	static const int fatals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL,
	    SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatals) / sizeof(fatals[0]); i++)
		sigaction(fatals[i], &sa, NULL);
	sa.sa_handler = asked_to_quit;
	sa.sa_flags = 0;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int tui_term_quit_requested(void)
{
	return quit_req;
}

int tui_term_has_colour(void)
{
	return T.colour;
}

static attr_t attr_of(unsigned a)
{
	return (a & TUI_A_BOLD ? A_BOLD : 0) |
	    (a & TUI_A_REVERSE ? A_REVERSE : 0) |
	    (a & TUI_A_UNDERLINE ? A_UNDERLINE : 0) |
	    (a & TUI_A_DIM ? A_DIM : 0);
}

/* Colour pairs for each role from the theme (256 or 8 colours). */
void tui_term_theme(const tui_theme_t *t)
{
	tui_theme_t mono;

	if (!T.colour) {
		tui_theme_mono(&mono);
		t = &mono;
	}
	for (int r = 0; r < TUI_NROLES; r++) {
		const tui_style_t *st = &t->tt_roles[r];
		int big = COLORS >= 256;
		short fg = (short)(big ? st->ts_fg256 : st->ts_fg8);
		short bg = (short)(big ? st->ts_bg256 : st->ts_bg8);

		T.attrs[r] = attr_of(st->ts_attr);
		T.pairs[r] = 0;
		if (T.colour && (fg >= 0 || bg >= 0) && r + 1 < COLOR_PAIRS) {
			init_pair((short)(r + 1), fg, bg);
			T.pairs[r] = (short)(r + 1);
		}
	}
}

/* A full-screen program needs to move the cursor (TERM=dumb cannot). */
static int addressable(void)
{
	char cap[] = "cup";
	const char *cup = tigetstr(cap);

	return cup != NULL && cup != (const char *)-1;
}

int tui_term_open(const tui_theme_t *t, int *cols, int *rows)
{
	const char *nc = getenv("NO_COLOR");

	setlocale(LC_ALL, "");
	T.utf8 = MB_CUR_MAX > 1;
	fflush(stderr);
	if ((T.errtmp = tmpfile()) != NULL && (T.saved_err = dup(2)) >= 0)
		dup2(fileno(T.errtmp), 2);
	signals();
	/* newterm, unlike initscr, returns NULL instead of exiting when the
	 * terminal type is unknown */
	if (newterm(NULL, stdout, stdin) == NULL) {
		restore_stderr(1);
		return -1;
	}
	if (!addressable()) {	/* dumb, or a hardcopy terminal */
		endwin();
		restore_stderr(1);
		return -1;
	}
	T.open = 1;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED |
	    BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	T.colour = has_colors() && (nc == NULL || nc[0] == '\0');
	if (T.colour) {
		start_color();
		use_default_colors();
	}
	tui_term_theme(t);
	getmaxyx(stdscr, *rows, *cols);
	return 0;
}

void tui_term_close(void)
{
	if (T.open) {
		curs_set(1);
		endwin();
		T.open = 0;
	}
	restore_stderr(1);
}

/* The size after a resize: asked of the terminal itself, since curses
 * does not always learn it from SIGWINCH before KEY_RESIZE arrives. */
void tui_term_size(int *cols, int *rows)
{
	struct winsize ws;

	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
	    (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, *rows, *cols);
}

/* Non-ASCII glyphs for terminals that cannot show them. */
static wchar_t ascii(uint32_t c)
{
	if (c >= 0x2581 && c <= 0x2588)
		return "_.,-=+*#"[c - 0x2581];
	switch (c) {
	case 0x2591: return '.';
	case 0x2592: return ':';
	case 0x2593: return '%';
	case 0x2500: return '-';
	default: return c < 0x80 ? (wchar_t)c : '?';
	}
}

void tui_term_draw(const tui_surface_t *s, int cur_x, int cur_y,
    int show_cursor)
{
	for (int y = 0; y < s->ts_rows && y < LINES; y++) {
		for (int x = 0; x < s->ts_cols && x < COLS; x++) {
			const tui_cell_t *c = &s->ts_cells[(size_t)y *
			    s->ts_cols + x];
			wchar_t wc[2] = { T.utf8 ? (wchar_t)c->tc_ch :
			    ascii(c->tc_ch), 0 };
			cchar_t cc;

			if (wc[0] == 0)
				wc[0] = ' ';
			setcchar(&cc, wc, T.attrs[c->tc_role],
			    T.pairs[c->tc_role], NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	curs_set(show_cursor ? 1 : 0);
	if (show_cursor)
		move(cur_y, cur_x);
	refresh();
}

static uint32_t fkey(int k, int *mx, int *my)
{
	MEVENT ev;

	switch (k) {
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_DC: return TUI_KEY_DEL;
	case KEY_BTAB: return TUI_KEY_BTAB;
	case KEY_BACKSPACE: return TUI_KEY_BS;
	case KEY_ENTER: return TUI_KEY_ENTER;
	case KEY_RESIZE: return TUI_KEY_RESIZE;
	case KEY_MOUSE:
		if (getmouse(&ev) != OK)
			return TUI_KEY_NONE;
		if (ev.bstate & BUTTON4_PRESSED)
			return TUI_KEY_UP;
		if (ev.bstate & BUTTON5_PRESSED)
			return TUI_KEY_DOWN;
		*mx = ev.x;
		*my = ev.y;
		return TUI_KEY_MOUSE;
	default:
		if (k >= KEY_F(1) && k <= KEY_F(10))
			return TUI_KEY_F1 + (uint32_t)(k - KEY_F(1));
		return TUI_KEY_NONE;
	}
}

uint32_t tui_term_key(int ms, int wakefd, int *mx, int *my)
{
	struct pollfd pfd[2] = { { 0, POLLIN, 0 }, { wakefd, POLLIN, 0 } };
	wint_t wc;
	int r;

	timeout(0);
	r = get_wch(&wc);
	if (r == ERR) {
		if (poll(pfd, 2, ms) <= 0 || pfd[0].revents == 0)
			return TUI_KEY_NONE;
		r = get_wch(&wc);
	}
	if (r == ERR)
		return TUI_KEY_NONE;
	if (r == KEY_CODE_YES)
		return fkey((int)wc, mx, my);
	if (wc == '\n' || wc == '\r')
		return TUI_KEY_ENTER;
	if (wc == 8)
		return TUI_KEY_BS;
	return (uint32_t)wc;
}
