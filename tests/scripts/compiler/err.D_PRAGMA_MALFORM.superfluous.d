/*
 * Asserts: #pragma D option takes one <option>=<val> word
 */
#pragma D option quiet bufsize=1m

BEGIN
{
	exit(0);
}
