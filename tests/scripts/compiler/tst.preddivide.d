/*
 * Asserts: in a predicate, '/' divides unless '{', ';', '/' or the end
 * follows it
 */
BEGIN
/10 / 2 == 5 && (20 / 4) == 5/
{
	printf("divided\n");
	exit(0);
}
