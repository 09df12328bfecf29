/*
 * fuzz_tui.c - libFuzzer target for the TUI's key and command decoders:
 * bytes -> a script of operations on one session (the real engine and its
 * probe list), a model and a layout, each drawn into a surface:
 *   'k' u32        a key through tui_layout_key (the panes' decoder,
 *                  tui_keys_decode), with mouse coordinates
 *   'K' u8         a key from the table of special keys
 *   ':' text\n     a prompt command through tui_session_command (:save
 *                  goes to /dev/null whatever the file named)
 *   'o' text\n     output text into the model (lines, a partial line)
 *   'a' ...        an aggregation snapshot (names, functions, histograms)
 *   'r' u8 u8      a resize (1..255 columns and rows)
 *   'd'            a draw (the layout draws after every script anyway)
 * No D is enabled: nothing traces.  Any crash, hang, leak or sanitizer
 * report is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tui.h"
#include "dtrace_abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tui_model_t *model;
static tui_session_t *session;

struct rd {
	const uint8_t *p;
	size_t n;
};

static unsigned get8(struct rd *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t get32(struct rd *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)get8(r) << (8 * i);
	return v;
}

/* Text up to a newline or the end, at most len - 1 bytes. */
static void get_text(struct rd *r, char *buf, size_t len)
{
	size_t i = 0;

	while (r->n > 0 && *r->p != '\n' && i + 1 < len) {
		buf[i++] = (char)*r->p++;
		r->n--;
	}
	if (r->n > 0 && *r->p == '\n') {
		r->p++;
		r->n--;
	}
	buf[i] = '\0';
}

static const uint32_t specials[] = {
	TUI_KEY_TAB, TUI_KEY_ENTER, TUI_KEY_ESC, TUI_KEY_BS, TUI_KEY_UP,
	TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_PGUP, TUI_KEY_PGDN,
	TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_DEL, TUI_KEY_BTAB, TUI_KEY_F1,
	TUI_KEY_F10, TUI_KEY_RESIZE, TUI_KEY_MOUSE, '1', '2', '3', '4', '5',
	'/', 'n', 'f', ' ', 's', 'c', 'z', 'C', 'T', 'H', 'q', 'y', 'g', 'G',
	'j', 'k', '?', TUI_CTRL('c'), '\n', 8,
};
#define NSPECIALS (sizeof (specials) / sizeof (specials[0]))

static const int funcs[] = {
	DTRACEAGG_COUNT, DTRACEAGG_SUM, DTRACEAGG_MIN, DTRACEAGG_MAX,
	DTRACEAGG_AVG, DTRACEAGG_STDDEV, DTRACEAGG_QUANTIZE,
	DTRACEAGG_LQUANTIZE, DTRACEAGG_LLQUANTIZE,
};

/* An aggregation snapshot: up to 4 aggregations of up to 8 entries. */
static void aggs(struct rd *r)
{
	static char *labels[16] = { "-1", "0", "1", "2", "4", "8", "16",
	    "32", "64", "128", "256", "512", "1024", "2048", "4096", ">= 8192" };
	char name[32], key[64];
	int64_t b[16];

	tui_model_agg_begin(model);
	for (unsigned na = get8(r) % 5; na > 0; na--) {
		get_text(r, name, sizeof (name));
		tui_agg_t *a = tui_model_agg_get(model, name,
		    funcs[get8(r) % (sizeof (funcs) / sizeof (funcs[0]))]);

		for (unsigned ne = get8(r) % 9; a != NULL && ne > 0; ne--) {
			int nb = tui_is_hist(a->tag_func) ? (int)(get8(r) % 17) :
			    0;

			get_text(r, key, sizeof (key));
			for (int i = 0; i < nb; i++)
				b[i] = (int64_t)(int32_t)get32(r);
			tui_model_agg_put(a, key, (int64_t)(int32_t)get32(r), nb,
			    nb ? b : NULL, nb ? labels : NULL);
		}
	}
	tui_model_agg_end(model);
}

static void command(struct rd *r)
{
	char line[600];

	get_text(r, line, sizeof (line));
	if (strncmp(line, "save", 4) == 0 || strncmp(line, ":save", 5) == 0) {
		/* keep the verb and the kind, never write a named file */
		char *sp = strchr(line, ' ');

		if (sp != NULL && (sp = strchr(sp + 1, ' ')) != NULL)
			snprintf(sp, sizeof (line) - (size_t)(sp - line),
			    " /dev/null");
	}
	(void)tui_session_command(session, line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	tui_layout_t *l;
	tui_surface_t *s;
	char text[600], err[256];
	int cols = 80, rows = 24;

	if (session == NULL) {
		if ((model = tui_model_new(200)) == NULL ||
		    (session = tui_session_new(model, err, sizeof (err))) ==
		    NULL)
			abort();
	}
	if ((l = tui_layout_new()) == NULL)
		return 0;
	if ((s = tui_surface_new(cols, rows)) == NULL) {
		tui_layout_free(l);
		return 0;
	}
	tui_layout_resize(l, cols, rows);
	for (int ops = 0; r.n > 0 && ops < 256; ops++) {
		uint32_t key;

		switch (get8(&r)) {
		case 'k':
			key = get32(&r) % (TUI_KEY_MOUSE + 2);
			(void)tui_layout_key(l, key, (int)get8(&r),
			    (int)get8(&r), model);
			break;
		case 'K':
			(void)tui_layout_key(l, specials[get8(&r) % NSPECIALS],
			    (int)get8(&r), (int)get8(&r), model);
			break;
		case ':':
			command(&r);
			break;
		case 'o':
			get_text(&r, text, sizeof (text) - 1);
			strcat(text, get8(&r) & 1 ? "\n" : "");
			tui_model_output(model, text, strlen(text),
			    (int)get8(&r) % 4);
			break;
		case 'a':
			aggs(&r);
			break;
		case 'r':
			cols = (int)get8(&r) % 255 + 1;
			rows = (int)get8(&r) % 255 + 1;
			if (tui_surface_resize(s, cols, rows) == 0)
				tui_layout_resize(l, cols, rows);
			break;
		case 'd':
			tui_layout_draw(l, s, model, NULL);
			break;
		default:
			break;
		}
	}
	tui_layout_draw(l, s, model, NULL);
	tui_surface_free(s);
	tui_layout_free(l);
	return 0;
}
