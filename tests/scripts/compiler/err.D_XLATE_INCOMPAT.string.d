/*
 * Asserts: a translator member's value must suit the member's type
 */
struct s { int a; };

translator struct s < int x > {
	a = "text";
};
