/*
 * Asserts: bit-fields are stored masked to their width and loaded sign
 * extended (signed types) or zero extended, without disturbing their
 * neighbours
 */
struct bits {
	int a : 3;
	int b : 7;
	unsigned c : 14;
	long d : 35;
	int e : 1;
} v;

BEGIN
{
	v.a = 3;
	v.b = 0x3f;
	v.c = 0x3fff;
	v.d = 0x3ffffffff;
	v.e = 0;
	printf("%d %d %d %d %d\n", v.a, v.b, v.c, v.d, v.e);
	v.a = 7;
	v.b = 0x75;
	v.c = 0x15555;
	v.d = 0x755555555;
	v.e = 1;
	printf("%d %d %d %d %d\n", v.a, v.b, v.c, v.d, v.e);
	v.a = 256;
	v.b += 1;
	printf("%d %d\n", v.a, v.b);
	this->p = (struct bits *)alloca(sizeof (struct bits));
	this->p->c = 12;
	this->p->b = -2;
	printf("%d %d %d\n", this->p->c, this->p->b, this->p->a);
	exit(0);
}
