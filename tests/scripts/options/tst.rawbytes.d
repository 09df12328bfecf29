/* asserts: rawbytes prints traced strings as hex dumps */
#pragma D option rawbytes
#pragma D option strsize=16
BEGIN
{
	trace("ab");
	exit(0);
}
