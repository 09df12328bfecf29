/*
 * Asserts: print( ) lays a value out by its type as illumos dtrace does:
 * integers and pointers in hex (0 as "0"), chars quoted, strings
 * quoted, structs member by member with nested structs indented, arrays
 * in brackets
 */
struct t { int x; };
struct s { int a; char c; char *p; string str; struct t in; int arr[3]; };
struct s v;
BEGIN
{
	v.a = 1;
	v.c = 'z';
	v.in.x = 5;
	print(1);
	print("foo");
	print((char *)0);
	print(v);
	printf("\n");
	print(v.in);
	printf("\n");
	exit(0);
}
