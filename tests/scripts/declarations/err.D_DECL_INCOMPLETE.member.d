/*
 * Asserts: a member of an undefined struct type
 */
struct s {
	struct undefined u;
};

BEGIN
{
	exit(0);
}
