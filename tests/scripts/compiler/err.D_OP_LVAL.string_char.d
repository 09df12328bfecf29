/*
 * Asserts: a string's characters may be read (s[i]) but not written.
 */
BEGIN
{
	s = "hello";
	s[0] = 'j';
	exit(0);
}
