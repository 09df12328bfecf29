/*
 * panefx.h - one pane kind on its own, for tests/unit/tui/test_pane_*.c:
 * a model, the pane and an 80x20 surface; draw the pane, feed it keys as
 * the layout would (printable keys become TUI_C_CHAR while it types a
 * search), read rows back as text.  Header-only: each test file uses a
 * different part.
 */
#ifndef TEST_PANEFX_H
#define TEST_PANEFX_H

#include <string.h>
#include "tui.h"

#define PANEFX_COLS 80
#define PANEFX_ROWS 20

typedef struct panefx {
	tui_model_t *m;
	tui_pane_t *p;
	tui_surface_t *s;
	char row[512];
} panefx_t;

static inline int panefx_setup(panefx_t *f, enum tui_panek kind)
{
	memset(f, 0, sizeof(*f));
	f->m = tui_model_new(100);
	f->p = tui_pane_new(kind);
	f->s = tui_surface_new(PANEFX_COLS, PANEFX_ROWS);
	if (f->m == NULL || f->p == NULL || f->s == NULL)
		return -1;
	tui_pane_resize(f->p, PANEFX_COLS, PANEFX_ROWS);
	return 0;
}

static inline void panefx_teardown(panefx_t *f)
{
	tui_pane_free(f->p);
	tui_model_free(f->m);
	tui_surface_free(f->s);
}

static inline void panefx_draw(panefx_t *f)
{
	tui_surface_clip(f->s, 0, 0, PANEFX_COLS, PANEFX_ROWS);
	tui_surface_clear(f->s, TUI_R_NORMAL);
	f->p->tp_ops->draw(f->p, f->s, f->m);
}

static inline const char *panefx_row(panefx_t *f, int y)
{
	return tui_surface_row(f->s, y, f->row, sizeof(f->row));
}

/* The first row containing text, or -1. */
static inline int panefx_find(panefx_t *f, const char *text)
{
	for (int y = 0; y < PANEFX_ROWS; y++)
		if (strstr(panefx_row(f, y), text) != NULL)
			return y;
	return -1;
}

/* One key, as tui_layout_key hands it to a focused pane. */
static inline unsigned panefx_key(panefx_t *f, uint32_t key)
{
	tui_cmd_t c = tui_keys_decode(key);

	if (f->p->tp_searching && key >= ' ' && key < TUI_KEY_UP)
		c.tc_kind = TUI_C_CHAR;
	return f->p->tp_ops->handle(f->p, &c, f->m);
}

/* Every key of k; the answers or'd together. */
static inline unsigned panefx_keys(panefx_t *f, const char *k)
{
	unsigned r = 0;

	for (; *k != '\0'; k++)
		r |= panefx_key(f, (unsigned char)*k);
	return r;
}

#endif /* TEST_PANEFX_H */
