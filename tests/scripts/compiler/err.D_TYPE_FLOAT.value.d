/*
 * Asserts: a floating-point member may be declared but not used as a value
 */
struct s {
	double c;
};

BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	trace(this->p->c);
}
