/* A header with a prototype whose void is not its sole parameter. */
extern int hdr_f(void, int);
