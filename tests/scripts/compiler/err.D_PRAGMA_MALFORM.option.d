/*
 * Asserts: #pragma D option without an option is malformed
 */
#pragma D option

BEGIN
{
	exit(0);
}
