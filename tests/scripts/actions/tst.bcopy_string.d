/*
 * Asserts: a string is a source bcopy() copies from (Oracle's), whole
 * or from character n (s + n).
 */
BEGIN
{
	s = "hello";
	p = (char *)alloca(8);
	bcopy(s, p, 6);
	q = (char *)alloca(8);
	bcopy(s + 1, q, 5);
	printf("%s %s\n", stringof(p), stringof(q));
	exit(0);
}
