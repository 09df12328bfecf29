/* dtrace.c - the dtrace command (placeholder until the consumer lands). */
#include <stdio.h>
#include "engine.h"

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "dtrace: %s (not yet functional)\n", ENG_VERSION_STRING);
	return 1;
}
