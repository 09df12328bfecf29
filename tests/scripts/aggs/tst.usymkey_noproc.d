/*
 * Asserts: usym()/umod()/uaddr() keys are _usymaddr, which %A prints
 * even without -p/-c (no process: the address itself)
 */
BEGIN
{
	@[usym(0x1000), uaddr(0x2000)] = count();
	printa("%A %A %@d\n", @);
	exit(0);
}
