/*
 * Asserts: a bit-field may not be wider than its type
 */
struct s {
	int a : 33;
};

BEGIN
{
	exit(0);
}
