/* asserts: a record larger than the buffer is dropped and reported */
#pragma D option bufsize=64
#pragma D option strsize=256
BEGIN
{
	trace("this does not fit");
}

BEGIN
{
	exit(0);
}
