/*
 * Asserts: an enum may not have two enumerators of one name
 */
enum e { A, A };

BEGIN
{
	exit(0);
}
