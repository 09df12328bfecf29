/*
 * Asserts: a bit-field size must be a positive constant
 */
struct s {
	int a : -1;
};

BEGIN
{
	exit(0);
}
