/*
 * Asserts: sizeof may not be applied to a bit-field
 */
struct s {
	int a : 3;
} v;

BEGIN
{
	trace(sizeof (v.a));
}
