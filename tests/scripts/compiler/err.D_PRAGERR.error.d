/*
 * Asserts: #error stops compilation with its words ("#error: ...")
 */
#error this script is not finished

BEGIN
{
	exit(0);
}
