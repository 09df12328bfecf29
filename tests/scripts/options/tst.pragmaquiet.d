/*
 * asserts: #pragma D option quiet suppresses the header and probe lines
 * dtrace-flags: -x switchrate=10hz
 */
#pragma D option quiet
BEGIN
{
	printf("hello\n");
	exit(0);
}
