/*
 * Asserts: global, this-> and self-> variables and associative-array
 * elements of struct and union type take member stores and loads (nested
 * members and member arrays too); struct assignment copies the value;
 * a struct-typed inline and a struct as an associative-array key work
 */
struct in { short x; char tag; };
struct foo { int a; long b; struct in n; int arr[3]; };
union u { int i; char c[4]; };
struct foo g, h;
union u un;
this struct foo t;
self struct foo s;
struct foo m[int];
inline struct foo gi = g;

BEGIN
{
	g.a = 1;
	g.b = 2;
	g.n.x = 3;
	g.n.tag = 'z';
	g.arr[2] = 7;
	printf("g %d %d %d %c %d\n", g.a, g.b, g.n.x, g.n.tag, g.arr[2]);
	h = g;
	h.a = 10;
	printf("h %d %d %d, g.a still %d\n", h.a, h.b, h.n.x, g.a);
	this->t.a = 5;
	this->t.n.x = 6;
	printf("this %d %d\n", this->t.a, this->t.n.x);
	self->s.b = 8;
	self->s.arr[1] = 9;
	self->s.a = 11;
	printf("self %d %d %d\n", self->s.a, self->s.b, self->s.arr[1]);
	m[3].a = 12;
	m[3].b = 13;
	printf("m %d %d %d\n", m[3].a, m[3].b, m[4].a);
	un.i = 0x41424344;
	printf("union %c %d\n", un.c[0], sizeof (un));
	printf("inline %d\n", gi.a);
	k[g] = 1;
	k[h] = 2;
	k[g]++;
	printf("keys %d %d\n", k[g], k[h]);
	exit(0);
}
