/*
 * Asserts: copyoutstr() inside an expression, after speculate(), is
 * refused as a destructive action too
 */
uintptr_t where;

BEGIN
{
	spec = speculation();
}

BEGIN
{
	speculate(spec);
	n = (copyoutstr("x", where, 2), 1);
}
