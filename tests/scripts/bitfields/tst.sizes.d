/*
 * Asserts: a struct the D program declares packs bit-fields as dtrace's
 * CTF does: each in the smallest power-of-two number of bytes holding it,
 * starting at the byte after the last bit before it, with no tail padding
 */
struct r1 { int a : 1; };
struct r2 { int a : 1; int b : 3; };
struct r5 { int c : 12; int a : 10; int b : 3; };
struct r6 { int a : 20; int b : 3; int c : 12; };
struct r7 { long c : 32; long long d : 9; int e : 1; };
struct r8 { char a : 2; short b : 12; long c : 32; };
struct r12 { int a : 30; int b : 30; int c : 32; };
struct pad { int a; char b; };

BEGIN
{
	printf("%d %d %d %d %d %d %d %d\n", sizeof (struct r1),
	    sizeof (struct r2), sizeof (struct r5), sizeof (struct r6),
	    sizeof (struct r7), sizeof (struct r8), sizeof (struct r12),
	    sizeof (struct pad));
	exit(0);
}
