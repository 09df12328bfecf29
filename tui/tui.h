/*
 * tui.h - the whole TUI for main.c and session.c: the model, view and
 * terminal headers, and the engine session that feeds the model.
 *
 * Layering (STYLE.md section 10), one header each:
 *   model   tui_model.h  (model.c, probes.c, hist.c,  plain C, no curses,
 *                         complete.c, save.c, mem.c)  no engine, no drawing;
 *   view    tui_view.h   (surface.c, pane*.c,        panes draw the model
 *                         layout.c, keys.c,           into a tui_surface (a
 *                         theme.c, hist_draw.c)       grid of cells); key
 *                                                     codes -> tui_cmd,
 *                                                     handled by the focused
 *                                                     pane, which returns
 *                                                     TUI_* flags;
 *   term    tui_term.h   (prompt.c, term.c)          readline or libedit,
 *                                                     and the only file
 *                                                     calling curses;
 *   engine  tui.h        (session.c)                 the only file driving
 *                                                     the engine;
 *   main.c                                            options and the loop.
 * Each file includes the header of its layer (tests/layers.sh checks the
 * model and view never include a header above them).  Nothing prints or
 * exits except main.c and term.c's fatal path.  Unit tests build a model
 * by hand, feed commands to panes and compare surface rows as text.
 */
#ifndef TUI_H
#define TUI_H

#include "tui_term.h"

/* ---- session (session.c): the engine behind the model ------------------ */

typedef struct tui_session tui_session_t;
tui_session_t *tui_session_new(tui_model_t *m, char *err, size_t errlen);
void tui_session_free(tui_session_t *s);
int tui_session_setopt(tui_session_t *s, const char *name, const char *val);
/* Compile and enable D text; starts tracing when idle.  Errors go to the
 * model's message line with file:line:col and a caret. */
int tui_session_enable(tui_session_t *s, const char *src, int probespec,
    int spec_kind);
int tui_session_enable_file(tui_session_t *s, const char *path);
/* Periodic work: consume buffers, snapshot aggregations, per-CPU state.
 * Returns milliseconds until the next deadline. */
int tui_session_tick(tui_session_t *s);
/* dtui -r: show an experiment instead of tracing, with a time cursor
 * moved by the tick (playing) and :pause :play :step :jump SECONDS.
 * -1 with err when it cannot be opened. */
int tui_session_replay(tui_session_t *s, const char *path, char *err,
    size_t errlen);
/* eng_wakefd of the session while tracing, else -1. */
int tui_session_wakefd(tui_session_t *s);
int tui_session_stop(tui_session_t *s);
/* Run a prompt command (":list", ":set bufsize=8m"...). Returns TUI_QUIT
 * when the command asks to quit. */
unsigned tui_session_command(tui_session_t *s, const char *line);
void tui_session_probes(tui_session_t *s);
/* The id and argument types of probe (an index in the model's probe
 * tree) as one line in buf; "" if there is no such probe. */
void tui_session_probe_info(tui_session_t *s, int probe, char *buf,
    size_t len);
int tui_session_count(tui_session_t *s, const char *text);
const tui_vocab_t *tui_session_vocab(void);
const char *tui_session_theme_req(tui_session_t *s);

void tui_session_target(tui_session_t *s, int pid);
struct eng_proc;
int tui_session_continue(tui_session_t *s, struct eng_proc *p);
void tui_session_pause(tui_session_t *s, int paused);

#endif /* TUI_H */
