/*
 * Asserts: a cast of a struct value to its own type is accepted
 */
struct s { int a; };
struct s v;

BEGIN
{
	v.a = 7;
	x = (struct s)v;
	printf("%d\n", x.a);
	exit(0);
}
