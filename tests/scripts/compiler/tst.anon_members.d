/*
 * Asserts: anonymous struct and union members (C11, as system headers use
 * them) lay out as gcc lays them out and their members are reachable by
 * name; floating-point types can be declared as members.  Offsets are
 * gcc's for the same declaration on x86_64; the size is D's (a struct the
 * D program declares ends at its last member, as dtrace's CTF has it).
 */
struct s {
	int a;
	union {
		long b;
		double c;
	};
	struct {
		char d;
		float e;
	};
	int z;
};

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", sizeof (struct s),
	    offsetof(struct s, b), offsetof(struct s, c),
	    offsetof(struct s, d), offsetof(struct s, e),
	    offsetof(struct s, z), sizeof (long double));
	this->p = (struct s *)alloca(sizeof (struct s));
	this->p->b = 42;
	this->p->d = 'x';
	printf("%d %c\n", this->p->b, this->p->d);
	exit(0);
}
