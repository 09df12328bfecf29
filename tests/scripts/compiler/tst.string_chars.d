/*
 * Asserts: Oracle's string extensions: a string indexed gives its
 * characters (s[i], of variables, built-ins, self-> and this->), s + n
 * is the string from character n, and a string may be compared with
 * NULL (as an address: a string is never NULL).
 */
BEGIN
{
	s = "hello";
	self->t = "xyz";
	this->u = "abc";
	printf("%c %c %d|", s[0], s[4], s[5]);
	printf("%s %s %s|", s + 2, s + 0, s + 5);
	printf("%c %c|", execname[0], probename[1]);
	printf("%c %c|", self->t[2], this->u[1]);
	printf("%d %d %d\n", s == NULL, s != NULL, NULL != probename);
	exit(0);
}
