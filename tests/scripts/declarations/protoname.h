/* A header with a prototype that names its void parameter. */
extern int hdr_g(void unused);
