/*
 * Asserts: a destructive subroutine (copyout) called after speculate()
 * is refused like a destructive action
 */
uintptr_t where;

BEGIN
{
	spec = speculation();
}

BEGIN
{
	speculate(spec);
	copyout(&where, where, 8);
}
