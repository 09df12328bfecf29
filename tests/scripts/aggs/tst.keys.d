/* asserts: string and integer keys print as dtrace lays them out */
BEGIN
{
	@["k", 1] = count();
	@["k", 2] = count();
	@["k", 2] = count();
	exit(0);
}
