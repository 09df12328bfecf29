/*
 * Asserts: sizeof a string constant is its length plus the NUL, as in C
 * and dtrace; sizeof a string variable is strsize
 */
#pragma D option strsize=64

BEGIN
{
	s = "hello";
	printf("%d %d %d\n", sizeof("hi"), sizeof(""), sizeof(s));
	exit(0);
}
