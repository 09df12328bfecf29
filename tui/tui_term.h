/*
 * tui_term.h - the TUI's terminal side: the prompt (prompt.c, readline or
 * libedit behind one interface) and the terminal (term.c, the only file
 * that calls curses), which shows a surface and reads keys.
 */
#ifndef TUI_TERM_H
#define TUI_TERM_H

#include "tui_view.h"

/* ---- prompt (prompt.c): readline or libedit ---------------------------- */

typedef void tui_prompt_line_f(const char *line, void *arg);
typedef char **tui_prompt_complete_f(const char *text, int start, int end,
    void *arg);
int tui_prompt_init(const char *histfile, tui_prompt_line_f *cb,
    tui_prompt_complete_f *comp, void *arg);
void tui_prompt_fini(void);
/* Feed one key (tui_key); returns 1 if the key was taken. */
int tui_prompt_key(uint32_t key);
void tui_prompt_view(tui_prompt_view_t *pv);
void tui_prompt_insert(const char *text);
void tui_prompt_clear_line(void);
void tui_prompt_set_prompt(const char *prompt);
const char *tui_prompt_text(void);
void tui_prompt_clear_matches(void);
void tui_prompt_remember(const char *text);

/* ---- the terminal (term.c): the only file that calls curses ----------- */

/* Take the terminal: stderr goes to a temporary file until close, and
 * fatal signals restore the terminal before re-raising. */
int tui_term_open(const tui_theme_t *t, int *cols, int *rows);
void tui_term_close(void);
void tui_term_theme(const tui_theme_t *t);
int tui_term_has_colour(void);
void tui_term_draw(const tui_surface_t *s, int cur_x, int cur_y,
    int show_cursor);
/* Wait up to ms for a key; TUI_KEY_NONE on timeout.  Mouse clicks come
 * back as TUI_KEY_MOUSE with *mx, *my; resize as TUI_KEY_RESIZE.  If
 * wakefd >= 0 and becomes readable, the wait ends early (TUI_KEY_NONE):
 * the engine wants its buffers consumed now (eng_wakefd). */
uint32_t tui_term_key(int ms, int wakefd, int *mx, int *my);
void tui_term_size(int *cols, int *rows);
/* Set by SIGTERM/SIGHUP: the loop should quit cleanly. */
int tui_term_quit_requested(void);

#endif /* TUI_TERM_H */
