/*
 * Asserts: a struct clause-local read before anything is stored in it
 * reads zeros, as dtrace's zero-filled clause-local storage does (no
 * "invalid address"); a store to one member keeps the others zero, and
 * the firing's later clauses see what the earlier ones stored.
 */
struct pt { int x; long y; char tag[4]; };
this struct pt p;

BEGIN
{
	printf("%d %d %d\n", this->p.x, this->p.y, this->p.tag[0]);
	this->p.y = 7;
}

BEGIN
{
	printf("%d %d\n", this->p.x, this->p.y);
	exit(0);
}
