/*
 * Asserts: a bit-field must be of integer type
 */
struct t { int x; };
struct s {
	struct t a : 3;
};

BEGIN
{
	exit(0);
}
