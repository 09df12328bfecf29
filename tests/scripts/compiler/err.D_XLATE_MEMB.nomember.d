/*
 * Asserts: a translator member must be a member of the output type
 */
struct s { int a; };

translator struct s < int x > {
	b = x;
};
