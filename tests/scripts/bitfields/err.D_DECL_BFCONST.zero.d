/*
 * Asserts: a named bit-field may not be zero bits
 */
struct s {
	int a : 0;
};

BEGIN
{
	exit(0);
}
