/*
 * Asserts: a struct-typed member takes a struct value (g.inner = v), and
 * variables take struct types from their first assignment, between
 * globals and clause-locals both ways
 */
struct xy {
	int x, y;
};
struct pair {
	struct xy a;
	struct xy b;
};
struct xy G;
this struct xy t;
struct pair P;

BEGIN
{
	G.x = 1;
	G.y = 2;
	this->t.x = 3;
	this->t.y = 4;
	P.a = G;
	P.b = this->t;
	COPY = P;
	this->copy = COPY;
	this->copy.a = this->t;
	COPY.b = G;
	printf("%d %d %d %d\n", P.a.x, P.a.y, P.b.x, P.b.y);
	printf("%d %d %d %d\n", COPY.a.x, COPY.a.y, COPY.b.x, COPY.b.y);
	printf("%d %d %d %d\n", this->copy.a.x, this->copy.a.y,
	    this->copy.b.x, this->copy.b.y);
	exit(0);
}
