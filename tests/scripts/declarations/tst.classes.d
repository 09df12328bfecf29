/*
 * Asserts: "self x;" and "this x;" declare an int (implicit int); extern
 * declarations with "[]" and function pointer declarators parse; int
 * a[2][3] is two arrays of three; a redeclaration of the same type is
 * accepted
 */
self x;
this y;
extern int ext[];
int (*fp)(int, ...);
int m[2][3];
int same;
int same;
int f(void);

BEGIN
{
	self->x = 0x100000001;
	this->y = 7;
	m[1][2] = 5;
	printf("%d %d %d %d %d %d %d\n", self->x, this->y, sizeof (self->x),
	    sizeof (fp), sizeof (m), sizeof (m[1]), m[1][2]);
	exit(0);
}
