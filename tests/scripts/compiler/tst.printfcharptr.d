/*
 * Asserts: printf %s of stringof() of a char * prints the string it
 * points to, never the pointer's own bytes (a bare char * is refused, as
 * dtrace does: err.D_PRINTF_ARG_TYPE.charptr.d); %s of a string and
 * other conversions of the pointer are unchanged.
 */
#pragma D option quiet

BEGIN
{
	this->p = (char *)alloca(4);
	this->p[0] = 'h';
	this->p[1] = 'i';
	this->p[2] = 0;
	printf("[%s] [%s] [%s] %d\n", stringof(this->p),
	    stringof((char *)(this->p + 1)),
	    "str", this->p != 0);
	trace(stringof(this->p));
	printf("\n");
	exit(0);
}
