/*
 * Asserts: integer arithmetic, promotions, casts, shifts, comparisons,
 * logical operators, ?: and folding give C's (and dtrace's) results.
 */
#pragma D option quiet

BEGIN
{
	a = 7;
	b = -3;
	printf("%d %d %d %d %d\n", a + b, a - b, a * b, a / b, a % b);
	printf("%d %d %d\n", a << 2, -16 >> 2, (uint32_t)-16 >> 28);
	printf("%d %d %d %d\n", a & 3, a | 8, a ^ 5, ~a);
	printf("%d %d %d %d %d %d\n", a > b, a < b, a >= 7, a <= 6, a == 7,
	    a != 7);
	printf("%d %d %d %d\n", a && b, a && 0, 0 || b, a ^^ b);
	printf("%d %d\n", a > 5 ? 100 : 200, !a);
	printf("%d %d %d\n", (char)300, (unsigned char)-1, (short)70000);
	printf("%u %x %o\n", (uint32_t)-1, 0xabcd, 8);
	printf("%d %d\n", sizeof (uint64_t), sizeof (char));
	printf("%d\n", 1 + 2 * 3 - 4 / 2);
	u = (uint32_t)4294967295;
	s = (int64_t)-1;
	i = -1;
	printf("%d %d %d %d\n", u > s, i < 0u, i < 0, (uint64_t)1 > i);
	exit(0);
}
