/* asserts: under the ring policy output appears (at exit) */
#pragma D option bufpolicy=ring
BEGIN
{
	printf("ring\n");
	exit(0);
}
