/*
 * session_impl.h - the engine session's own state, shared by the files
 * that drive the engine for the TUI: session.c (tracing, prompt
 * commands), replay.c (dtui -r's time cursor) and enablings.c (the
 * enablings pane's counters).  Not for the model or the view.
 */
#ifndef TUI_SESSION_IMPL_H
#define TUI_SESSION_IMPL_H

#include "engine.h"
#include "tui.h"

#define TICK_MS 100		/* consume and sample at 10 Hz */

struct tui_session {
	eng_hdl_t *ts_h;
	tui_model_t *ts_m;
	double ts_last;		/* time of the last sample, seconds */
	double ts_lastagg;	/* time of the last aggregation snapshot */
	double ts_aggrate;	/* seconds between snapshots */
	uint64_t ts_lastrec;	/* events at the last sample, all CPUs */
	tui_rate_t ts_evrate;	/* events per second */
	char ts_theme[64];	/* ":theme NAME" waiting for main.c */
	int ts_target;		/* $target, 0 if none */
	int ts_paused;		/* display paused: no aggregation snapshots */
	struct opt { char *name, *val; } *ts_opts;	/* set so far, for a */
	int ts_nopts;		/* new engine handle after a stop */
	int ts_replay;		/* showing an experiment (dtui -r) */
	int ts_follow;		/* ... while it is being written */
	int ts_playing;		/* ... its time cursor moving */
	double ts_t0;		/* wall time at which the experiment's 0 is */
	double ts_rt;		/* the cursor: time of the last tick shown */
	uint64_t ts_rtns;	/* ... in nanoseconds, as recorded */
	char ts_path[1024];	/* the experiment (reopened to go back) */
	double ts_lastclauses;	/* time of the last enablings sample */
	double ts_tgo;		/* when tracing started */
};

/* CLOCK_MONOTONIC in seconds. */
double tui_session_now(void);
/* Route the engine's callbacks into the model. */
void tui_session_attach(tui_session_t *s);
/* An aggregation snapshot into the model (and a heatmap column). */
void tui_session_snapshot(tui_session_t *s);

/* Compile src (a script path when file is set); NULL with the diagnostic
 * shown under the prompt. */
eng_prog_t *tui_session_compile(tui_session_t *s, const char *src, int file,
    int probespec, int spec_kind);

/* enablings.c: the counters of the last work tick into the model's
 * clause rows (dt: seconds since the last sample); ":enable N". */
void tui_session_clauses(tui_session_t *s, double dt);
void tui_session_cmd_enable(tui_session_t *s, const char *arg);

/* replay.c: a replay's prompt command (1 if it was one); a tick. */
int tui_replay_command(tui_session_t *s, const char *cmd, const char *arg);
void tui_replay_tick(tui_session_t *s, double t);

#endif /* TUI_SESSION_IMPL_H */
