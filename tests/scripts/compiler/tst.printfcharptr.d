/*
 * Asserts: printf %s of a char * prints the string it points to (as
 * stringof would), never the pointer's own bytes; %s of a string and
 * other conversions of the pointer are unchanged.
 */
#pragma D option quiet

BEGIN
{
	this->p = (char *)alloca(4);
	this->p[0] = 'h';
	this->p[1] = 'i';
	this->p[2] = 0;
	printf("[%s] [%s] [%s] %d\n", this->p, (char *)(this->p + 1),
	    "str", this->p != 0);
	trace(stringof(this->p));
	printf("\n");
	exit(0);
}
