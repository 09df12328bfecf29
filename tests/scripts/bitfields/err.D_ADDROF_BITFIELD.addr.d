/*
 * Asserts: the address of a bit-field may not be taken
 */
struct s {
	int a : 3;
} v;

BEGIN
{
	trace(&v.a);
}
