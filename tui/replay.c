/*
 * replay.c - dtui -r: an experiment shown through the same model as a
 * live session, with a time cursor (:pause :play :step :jump, forward
 * or back; the heatmap pane's [ and ] move it a column).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "session_impl.h"

/* Move the cursor one recorded tick on: its output, aggregation
 * snapshot and buffer figures.  0 at the end (said in a message). */
static int replay_step(tui_session_t *s)
{
	uint64_t ns = 0;
	int r = eng_replay_step(s->ts_h, NULL, &ns);
	const char *w;

	if (r > 0) {
		tui_session_clauses(s, ns / 1e9 - s->ts_rt);
		s->ts_rt = ns / 1e9;
		s->ts_rtns = ns;
		s->ts_m->tm_now = s->ts_rt;
		tui_session_snapshot(s);
		return 1;
	}
	if (r == 0 && s->ts_follow) {
		if (!eng_replay_finished(s->ts_h))
			return 0;		/* more to come: wait */
		s->ts_follow = 0;		/* closed: read what is left */
		eng_replay_follow(s->ts_h, 0);
		return replay_step(s);
	}
	s->ts_m->tm_state = TUI_STOPPED;
	s->ts_playing = 0;
	if ((w = eng_replay_warning(s->ts_h)) == NULL)
		w = eng_replay_note(s->ts_h);	/* records skipped */
	if (r < 0)
		tui_model_message(s->ts_m, 1, "%s", eng_errmsg(s->ts_h));
	else
		tui_model_message(s->ts_m, eng_replay_warning(s->ts_h) !=
		    NULL, "replay ended at %.3f s%s%s",
		    s->ts_rt, w ? ": " : "", w ? w : "");
	return 0;
}

/* Open the experiment at path on a new engine handle, which replaces
 * the session's: the cursor at 0, playing, following the experiment if
 * it is still being written.  -1 with err. */
static int open_experiment(tui_session_t *s, const char *path, char *err,
    size_t errlen)
{
	eng_hdl_t *h = eng_open(ENG_O_NOPROVIDERS, err, errlen);

	if (h == NULL)
		return -1;
	if (eng_replay_open(h, path) != 0) {
		snprintf(err, errlen, "%s", eng_errmsg(h));
		eng_close(h);
		return -1;
	}
	eng_close(s->ts_h);
	s->ts_h = h;
	tui_session_attach(s);
	s->ts_m->tm_route = "a recorded experiment";	/* status line */
	s->ts_replay = s->ts_playing = 1;
	s->ts_follow = !eng_replay_finished(h) &&
	    eng_replay_follow(h, 1) == 0;
	s->ts_t0 = tui_session_now();
	s->ts_rt = 0;
	s->ts_rtns = 0;
	s->ts_m->tm_state = TUI_TRACING;
	tui_model_setcpus(s->ts_m, eng_ncpus(h));
	return 0;
}

int tui_session_replay(tui_session_t *s, const char *path, char *err,
    size_t errlen)
{
	if (open_experiment(s, path, err, errlen) != 0)
		return -1;
	snprintf(s->ts_path, sizeof(s->ts_path), "%s", path);
	tui_model_message(s->ts_m, 0, "%s %s (:pause :play :step "
	    ":jump SECONDS)", s->ts_follow ? "following" : "replaying", path);
	return 0;
}

/* Move the cursor to the first tick at or after to_ns (or the end).  The
 * engine only goes forward: an earlier time is reached from the start,
 * on a new handle, with the model rewound (its output, aggregations and
 * heatmap columns rebuilt tick by tick, so that the per-interval values
 * and the heatmap are those of the new cursor). */
static void jump(tui_session_t *s, uint64_t to_ns)
{
	char err[512];
	int playing = s->ts_playing;

	if (to_ns <= s->ts_rtns) {	/* the cursor's own time too: a
					 * heatmap chosen since fills in */
		tui_model_rewind(s->ts_m);
		if (open_experiment(s, s->ts_path, err, sizeof(err)) != 0) {
			s->ts_m->tm_state = TUI_STOPPED;
			tui_model_message(s->ts_m, 1, "%s", err);
			return;
		}
		s->ts_playing = playing;
	}
	while (s->ts_rtns < to_ns && s->ts_m->tm_state == TUI_TRACING &&
	    replay_step(s))
		;
	s->ts_t0 = tui_session_now() - s->ts_rt;
}

/* SECONDS as nanoseconds; -1 if it is not a time. */
static int64_t parse_time(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || v < 0 || v > 1e9)
		return -1;
	while (*end == ' ' || *end == 's')
		end++;
	return *end == '\0' ? (int64_t)(v * 1e9 + 0.5) : -1;
}

/* :pause, :play, :step, :jump SECONDS; 1 if cmd was one. */
int tui_replay_command(tui_session_t *s, const char *cmd, const char *arg)
{
	if (strcmp(cmd, "pause") == 0) {
		s->ts_playing = 0;
	} else if (strcmp(cmd, "play") == 0) {
		s->ts_playing = s->ts_m->tm_state == TUI_TRACING;
		s->ts_t0 = tui_session_now() - s->ts_rt;
	} else if (strcmp(cmd, "step") == 0) {	/* :step [N] ticks */
		int n = *arg != '\0' ? atoi(arg) : 1;

		s->ts_playing = 0;
		while (n-- > 0 && replay_step(s))
			;
	} else if (strcmp(cmd, "jump") == 0) {
		int64_t to = parse_time(arg);

		if (to < 0) {
			tui_model_message(s->ts_m, 1, ":jump SECONDS: a time "
			    "since the experiment began, not \"%s\"", arg);
			return 1;
		}
		jump(s, (uint64_t)to);
	} else {
		return 0;
	}
	if (s->ts_m->tm_state == TUI_TRACING)
		tui_model_message(s->ts_m, 0, "%s at %.3f s", s->ts_playing ?
		    "playing" : "paused", s->ts_rt);
	return 1;
}

void tui_replay_tick(tui_session_t *s, double t)
{
	if (s->ts_playing && t - s->ts_t0 >= s->ts_rt)
		replay_step(s);
}
