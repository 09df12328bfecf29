/*
 * Asserts: float, double and long double variables may be declared,
 * assigned from variables of their type, and printed with %e %f %g (the
 * bits of a float or a double read as one, as libdtrace reads them)
 */
float f, f2;
double d, d2;
long double ld;
struct s { double x; float y; };

BEGIN
{
	printf("%f %e %g %E %G %Lf\n", f, f, d, d, d, ld);
	this->p = (uint64_t *)alloca(16);
	this->p[0] = 0x3ff8000000000000;
	this->q = (uint32_t *)(this->p + 1);
	*this->q = 0xc0200000;
	d = *(double *)this->p;
	f = *(float *)this->q;
	d2 = d;
	f2 = f;
	self->d = d2;
	this->s = (struct s *)this->p;
	printf("%f %e %g %.2f %g\n", d2, self->d, f2, f, this->s->x);
	printf("%d %d %d\n", sizeof (f), sizeof (d), sizeof (ld));
	exit(0);
}
