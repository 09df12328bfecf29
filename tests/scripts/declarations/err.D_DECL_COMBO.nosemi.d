/*
 * Asserts: a struct definition missing its ';' before a declaration
 */
struct foo {
	int a;
}
int x;

BEGIN
{
	exit(0);
}
