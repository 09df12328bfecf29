/*
 * Asserts: a struct is an aggregation key, as dtrace's key check refuses
 * only void and dynamic types: equal structs are one entry, and the key
 * prints as dtrace prints a record of its size (8 bytes " %16lld", 4
 * bytes " %8d", any other size as bytes).
 */
struct s8 { int a; int b; };
struct s12 { int a; int b; int c; };
struct s4 { short a; short b; };
struct s8 v;
struct s12 w;
struct s4 u;

BEGIN
{
	v.a = 1; v.b = 2;
	w.a = 3; w.b = 0x41424344; w.c = 0;
	u.a = 1; u.b = 1;
	@a[v] = count();
	@b[w] = count();
	@c[u, 5] = sum(2);
	@a[v] = count();
	printa(@a);
	printa(@b);
	printa(@c);
	exit(0);
}
