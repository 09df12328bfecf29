/*
 * Asserts: a clause's actions are checked before its predicate, so the
 * predicate may read a global that only the same clause assigns
 */
BEGIN
/total == 0/
{
	total = 10;
	printf("%d\n", total);
}

BEGIN
/(seen = 3) == 3/
{
	printf("%d\n", seen);
	exit(0);
}
