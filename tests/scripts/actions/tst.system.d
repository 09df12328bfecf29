/*
 * asserts: system() runs its formatted command in order with the output
 * dtrace-flags: -q -w
 */
BEGIN
{
	printf("before\n");
	system("echo %s %d", "from", 42);
	printf("after\n");
	exit(0);
}
