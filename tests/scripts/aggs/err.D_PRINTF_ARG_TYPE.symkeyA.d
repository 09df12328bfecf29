/*
 * Asserts: a mod() key is a kernel address (_symaddr): %A, for user
 * addresses, refuses it without -p/-c
 */
BEGIN
{
	@[mod(0)] = count();
	printa("%A %@d\n", @);
	exit(0);
}
