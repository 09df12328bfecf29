/*
 * Asserts: trace() of a struct that is not 1, 2, 4 or 8 bytes long prints
 * dtrace's hex dump of its bytes
 */
#pragma D option quiet
struct foo { int a; char b; short c; char d[5]; };
struct foo g;

BEGIN
{
	g.a = 0x01020304;
	g.b = 'A';
	g.c = -1;
	g.d[4] = 'z';
	trace(g);
	exit(0);
}
