/*
 * Asserts: a function member is refused
 */
struct s {
	int f(int);
};

BEGIN
{
	exit(0);
}
