/*
 * Asserts: a whole struct assigned from xlate<struct T>(x) gets each
 * member the translator defines, and zero in every other member
 */
#pragma D option quiet

struct point { int x; int y; };
struct polar { int r; int quadrant; long spare; };

translator struct polar < struct point p >
{
	r = p.x + p.y;
	quadrant = p.x >= 0 ? (p.y >= 0 ? 1 : 4) : (p.y >= 0 ? 2 : 3);
};

struct point pt;
struct polar pol;

BEGIN
{
	pt.x = -3;
	pt.y = 7;
	pol.spare = 99;
	pol = xlate<struct polar>(pt);
	printf("r=%d quadrant=%d spare=%d\n", pol.r, pol.quadrant, pol.spare);
	exit(0);
}
