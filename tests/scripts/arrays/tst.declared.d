/*
 * Asserts: D-declared arrays (global, this->, self->) take element stores
 * and loads; &a[i], pointer arithmetic, pointer differences and sizeof
 * work on them as in C
 */
int a[5];
this char c[4];
self long l[3];

BEGIN
{
	a[0] = 100;
	a[4] = 104;
	a[2] = 102;
	printf("a %d %d %d %d\n", a[0], a[4], *(a + 2), sizeof (a));
	printf("diff %d next %d\n", &a[4] - &a[1], (&a[3])[1]);
	this->p = &a[2];
	printf("p %d %d %d\n", *this->p, this->p[-2], *(this->p + 2));
	this->c[1] = 'x';
	printf("this %c %d\n", this->c[1], sizeof (this->c));
	self->l[2] = -5;
	self->l[0] = 1;
	printf("self %d %d %d\n", self->l[0], self->l[1], self->l[2]);
	exit(0);
}
