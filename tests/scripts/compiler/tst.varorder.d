/*
 * Asserts: what dtrace accepts about when variables exist: a predicate
 * may read what its own clause's actions assign; ++ creates an int64_t;
 * a declared thread-local reads 0; a clause-local assigned by an earlier
 * clause for the same probe is readable; a thread-local assigned earlier
 * in the program may be read by any later clause.
 */
#pragma D option quiet

self int declared;

BEGIN
/self->first == 0/
{
	self->first = 1;
	this->shared = 7;
	counts["a"]++;
}

BEGIN
/self->first/
{
	self->first++;
	printf("%d %d %d %d\n", self->first, self->declared, this->shared,
	    counts["a"]);
	exit(0);
}
