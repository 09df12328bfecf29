/*
 * Asserts: globals, thread-locals, clause-locals and associative arrays
 * (global and thread-local, several keys, string keys) hold their values;
 * compound assignment and ++/-- work on every kind of variable; a
 * thread-local declared and never assigned reads 0.
 */
#pragma D option quiet

self int nothing;

BEGIN
{
	x = 10;
	x += 5;
	x++;
	self->t = x * 2;
	self->t--;
	this->l = self->t + 1;
	a["one", 1] = 100;
	a["two", 2] = a["one", 1] + 1;
	a["two", 2] *= 2;
	self->arr[3] = 33;
	s = "str";
	printf("%d %d %d %d %d %d %s\n", x, self->t, this->l, a["one", 1],
	    a["two", 2], self->arr[3], s);
	printf("%d %d\n", a["none", 0], self->nothing);
	exit(0);
}
