/*
 * Asserts: stores into alloca'd memory through pointers, subscripts and
 * struct members (STB/STH/STW/STX), compound assignment and ++ on them,
 * and loads back with the member's size and sign.
 */
#pragma D option quiet

struct rec {
	int a;
	short b;
	char c;
	uint64_t d;
};

BEGIN
{
	p = (struct rec *)alloca(sizeof (struct rec));
	p->a = 40;
	p->a += 2;
	p->b = -2;
	p->c = 'x';
	p->d = 1ULL << 40;
	v = (int *)alloca(8);
	v[0] = 3;
	v[1] = v[0] * 2;
	printf("%d %d %c %d %d %d\n", p->a, p->b, p->c, p->d == 1ULL << 40,
	    v[0], v[1]);
	exit(0);
}
