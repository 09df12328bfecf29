/*
 * keys.c - the keymap: key codes (enum tui_key, Unicode for text) to
 * commands for the panes, and the table the help overlay prints.  One
 * table serves both, so the help can never disagree with the keys.
 * The help lines come first that one must find in a hurry (help, stop,
 * quit); the whole table fits the help overlay of an 80x24 screen.
 */
#include <stddef.h>
#include "tui.h"

static const struct binding {
	uint32_t key;
	enum tui_cmdk cmd;
	const char *name;	/* NULL: same command as the line above */
	const char *what;
} keymap[] = {
	{ TUI_KEY_F1, TUI_C_HELP, "F1 ?", "this help" },
	{ '?', TUI_C_HELP, NULL, NULL },
	{ TUI_CTRL('c'), TUI_C_STOP, "Ctrl-C", "stop tracing (stay in dtui)" },
	{ 'q', TUI_C_QUIT, "q F10", "quit (asks while tracing)" },
	{ TUI_KEY_F10, TUI_C_QUIT, NULL, NULL },
	{ TUI_KEY_TAB, TUI_C_NEXT_PANE, "Tab S-Tab", "next / previous pane" },
	{ TUI_KEY_BTAB, TUI_C_PREV_PANE, NULL, NULL },
	{ '1', TUI_C_NONE, "1 .. 6", "show that pane (see the tabs)" },
	{ ':', TUI_C_PROMPT, ": i", "go to the prompt (Esc leaves it)" },
	{ 'i', TUI_C_PROMPT, NULL, NULL },
	{ TUI_KEY_UP, TUI_C_UP, "Up Down k j", "move / scroll" },
	{ 'k', TUI_C_UP, NULL, NULL },
	{ TUI_KEY_DOWN, TUI_C_DOWN, NULL, NULL },
	{ 'j', TUI_C_DOWN, NULL, NULL },
	{ TUI_KEY_PGUP, TUI_C_PGUP, "PgUp PgDn", "page up / down" },
	{ TUI_KEY_PGDN, TUI_C_PGDN, NULL, NULL },
	{ TUI_KEY_HOME, TUI_C_HOME, "Home End g G", "first / last" },
	{ 'g', TUI_C_HOME, NULL, NULL },
	{ TUI_KEY_END, TUI_C_END, NULL, NULL },
	{ 'G', TUI_C_END, NULL, NULL },
	{ TUI_KEY_LEFT, TUI_C_LEFT, "Left Right", "select agg. or heat key / fold" },
	{ TUI_KEY_RIGHT, TUI_C_RIGHT, NULL, NULL },
	{ TUI_KEY_ENTER, TUI_C_ENTER, "Enter", "open / insert clause" },
	{ '/', TUI_C_SEARCH, "/ n", "search (filter probes) / next" },
	{ 'n', TUI_C_SEARCH_NEXT, NULL, NULL },
	{ 'f', TUI_C_FOLLOW, "f", "output: follow new lines" },
	{ ' ', TUI_C_PAUSE, "Space", "pause / resume the display" },
	{ 's', TUI_C_SORT, "s c z", "aggs: sort / cumulative-interval / zoom" },
	{ 'c', TUI_C_CUMUL, NULL, NULL },
	{ 'z', TUI_C_ZOOM, NULL, NULL },
	{ 'C', TUI_C_CLEAR, "C T", "clear / keep top 10 of selected agg." },
	{ 'T', TUI_C_TRUNC, NULL, NULL },
	{ 'H', TUI_C_HEAT, "H", "heatmap of the selected histogram" },
	{ TUI_KEY_ESC, TUI_C_ESC, NULL, NULL },
	{ TUI_KEY_BS, TUI_C_BACKSPACE, NULL, NULL },
	{ 8, TUI_C_BACKSPACE, NULL, NULL },
	{ '\n', TUI_C_ENTER, NULL, NULL },
	{ TUI_KEY_RESIZE, TUI_C_RESIZE, NULL, NULL },
	{ TUI_KEY_MOUSE, TUI_C_CLICK, NULL, NULL },
};

tui_cmd_t tui_keys_decode(uint32_t key)
{
	tui_cmd_t c = { TUI_C_NONE, key, 0, 0 };

	for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++) {
		if (keymap[i].key == key) {
			c.tc_kind = keymap[i].cmd;
			return c;
		}
	}
	if (key >= ' ' && key < TUI_KEY_UP)
		c.tc_kind = TUI_C_CHAR;
	return c;
}

/* The i-th line of help: returns the key names, *what the meaning;
 * NULL past the end. */
const char *tui_keys_help(int i, const char **what)
{
	for (size_t k = 0; k < sizeof(keymap) / sizeof(keymap[0]); k++) {
		if (keymap[k].name == NULL)
			continue;
		if (i-- == 0) {
			*what = keymap[k].what;
			return keymap[k].name;
		}
	}
	return NULL;
}
