/* main.c - dtui entry point (placeholder until the TUI lands). */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "dtui: not yet functional\n");
	return 1;
}
