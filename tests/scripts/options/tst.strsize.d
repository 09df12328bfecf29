/* asserts: strsize truncates strings */
#pragma D option strsize=4
BEGIN
{
	printf("%s\n", "abcdefgh");
	exit(0);
}
