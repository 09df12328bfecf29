/*
 * Asserts: ++ in a predicate creates the int64_t global the actions then
 * read (the predicate is checked again when the actions name it first)
 */
BEGIN
/x++ == 0/
{
	printf("%d %d\n", x, sizeof (x));
	exit(0);
}
