/* A header that declares a typedef twice. */
typedef int hdr_count_t;
typedef long hdr_count_t;
