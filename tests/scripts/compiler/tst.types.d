/*
 * Asserts: struct/union/enum/typedef declarations, bit-fields, sizeof,
 * offsetof, inline constants and enumerators.
 */
#pragma D option quiet

struct point {
	int x;
	char tag;
	long y;
	unsigned a : 3;
	unsigned b : 5;
};
union u {
	char c;
	uint64_t v;
};
typedef struct point point_t;
enum colour { RED, GREEN = 5, BLUE };
inline int ANSWER = 6 * 7;

BEGIN
{
	printf("%d %d %d %d\n", sizeof (point_t), offsetof(point_t, y),
	    sizeof (union u), sizeof (enum colour));
	printf("%d %d %d %d\n", RED, GREEN, BLUE, ANSWER);
	exit(0);
}
