/*
 * Asserts: escapes dtrace does not convert keep their backslash, in
 * strings and in character constants ('\'' is the two bytes \ and '),
 * while \" and \\ give the character
 */
BEGIN
{
	printf("[%s] [%s] [%s] %x %x\n", "a\?b", "c\'d", "e\"f\\g", '\'', '\?');
	exit(0);
}
