/*
 * Asserts: long may not qualify a struct
 */
struct foo { int a; };
long struct foo x;

BEGIN
{
	exit(0);
}
