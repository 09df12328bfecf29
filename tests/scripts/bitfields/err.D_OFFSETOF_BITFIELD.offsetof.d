/*
 * Asserts: offsetof may not name a bit-field
 */
struct s {
	int x;
	int a : 3;
};

BEGIN
{
	trace(offsetof(struct s, a));
}
