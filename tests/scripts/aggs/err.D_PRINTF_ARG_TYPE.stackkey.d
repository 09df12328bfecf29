/*
 * Asserts: a stack() key prints only with %k: printa's %p refuses it,
 * naming its type "stack"
 */
BEGIN
{
	@[stack()] = count();
	printa("%p %@d\n", @);
	exit(0);
}
