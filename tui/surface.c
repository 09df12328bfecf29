/*
 * surface.c - tui_surface: an in-memory grid of cells (code point + role)
 * that panes draw into.  Only term.c turns a surface into curses calls;
 * unit tests read rows back as text with tui_surface_row().
 *
 * Coordinates given to puts/putc/fill are relative to the clip window
 * (ts_x0, ts_y0, ts_w, ts_h), and nothing is written outside it, so a pane
 * can never scribble over its neighbours.  UTF-8 is decoded on the way in;
 * invalid bytes and control characters become '?', tabs become spaces.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tui_view.h"

tui_surface_t *tui_surface_new(int cols, int rows)
{
	tui_surface_t *s = tui_calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	if (tui_surface_resize(s, cols, rows) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

void tui_surface_free(tui_surface_t *s)
{
	if (s == NULL)
		return;
	free(s->ts_cells);
	free(s);
}

int tui_surface_resize(tui_surface_t *s, int cols, int rows)
{
	tui_cell_t *c;

	if (cols < 1)
		cols = 1;
	if (rows < 1)
		rows = 1;
	c = tui_calloc((size_t)cols * rows, sizeof(*c));
	if (c == NULL)
		return -1;
	free(s->ts_cells);
	s->ts_cells = c;
	s->ts_cols = cols;
	s->ts_rows = rows;
	tui_surface_clip(s, 0, 0, cols, rows);
	tui_surface_clear(s, TUI_R_NORMAL);
	return 0;
}

void tui_surface_clip(tui_surface_t *s, int x, int y, int w, int h)
{
	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x + w > s->ts_cols)
		w = s->ts_cols - x;
	if (y + h > s->ts_rows)
		h = s->ts_rows - y;
	s->ts_x0 = x;
	s->ts_y0 = y;
	s->ts_w = w < 0 ? 0 : w;
	s->ts_h = h < 0 ? 0 : h;
}

/* Clears the clip window. */
void tui_surface_clear(tui_surface_t *s, int role)
{
	for (int y = 0; y < s->ts_h; y++)
		tui_surface_fill(s, 0, y, s->ts_w, role, ' ');
}

void tui_surface_putc(tui_surface_t *s, int x, int y, int role, uint32_t ch)
{
	tui_cell_t *c;

	if (x < 0 || y < 0 || x >= s->ts_w || y >= s->ts_h)
		return;
	c = &s->ts_cells[(size_t)(s->ts_y0 + y) * s->ts_cols + s->ts_x0 + x];
	c->tc_ch = ch;
	c->tc_role = (uint8_t)role;
}

void tui_surface_fill(tui_surface_t *s, int x, int y, int w, int role,
    uint32_t ch)
{
	for (int i = 0; i < w; i++)
		tui_surface_putc(s, x + i, y, role, ch);
}

/* Decode one UTF-8 sequence at p (n bytes left); sets *used. */
static uint32_t decode(const unsigned char *p, size_t n, size_t *used)
{
	uint32_t c = p[0];
	size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 :
	    (c >> 3) == 30 ? 4 : 0;

	*used = 1;
	if (len == 0 || len > n)
		return '?';
	if (len == 1)
		return c;
	c &= 0x3f >> (len - 1);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return '?';
		c = c << 6 | (p[i] & 0x3f);
	}
	*used = len;
	return c;
}

int tui_surface_putn(tui_surface_t *s, int x, int y, int role,
    const char *utf8, size_t len)
{
	const unsigned char *p = (const unsigned char *)utf8;
	int x0 = x;
	size_t used;

	while (len > 0 && x < s->ts_w) {
		uint32_t c = decode(p, len, &used);

		p += used;
		len -= used;
		if (c == '\t') {
			do
				tui_surface_putc(s, x++, y, role, ' ');
			while (((x - x0) & 7) != 0 && x < s->ts_w);
			continue;
		}
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
			c = '?';
		tui_surface_putc(s, x++, y, role, c);
	}
	return x - x0;
}

int tui_surface_puts(tui_surface_t *s, int x, int y, int role,
    const char *utf8)
{
	return tui_surface_putn(s, x, y, role, utf8, strlen(utf8));
}

int tui_surface_printf(tui_surface_t *s, int x, int y, int role,
    const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_surface_puts(s, x, y, role, buf);
}

static size_t encode(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

char *tui_surface_row(const tui_surface_t *s, int y, char *buf, size_t len)
{
	size_t n = 0, keep = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (y < 0 || y >= s->ts_rows)
		return buf;
	for (int x = 0; x < s->ts_cols; x++) {
		char enc[4];
		uint32_t c = s->ts_cells[(size_t)y * s->ts_cols + x].tc_ch;
		size_t k = encode(c ? c : ' ', enc);

		if (n + k >= len)
			break;
		memcpy(buf + n, enc, k);
		n += k;
		if (c != ' ' && c != 0)
			keep = n;
	}
	buf[keep] = '\0';
	return buf;
}

int tui_surface_role_at(const tui_surface_t *s, int x, int y)
{
	if (x < 0 || y < 0 || x >= s->ts_cols || y >= s->ts_rows)
		return -1;
	return s->ts_cells[(size_t)y * s->ts_cols + x].tc_role;
}
