/*
 * Asserts: a struct may not have two members of one name
 */
struct s {
	int a;
	int a;
};

BEGIN
{
	exit(0);
}
