/*
 * Asserts: a translator between two types is defined once
 */
struct s { int a; };

translator struct s < int x > {
	a = x;
};

translator struct s < int x > {
	a = x + 1;
};
