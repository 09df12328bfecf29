#!/bin/sh
# Asserts: -C with ordinary system headers: <stdint.h> (which redefines
# D's own typedefs such as intptr_t), <sys/types.h>, <stdio.h>,
# <sys/socket.h>, <netinet/in.h>, <stdlib.h>, <stddef.h>, <time.h>,
# <signal.h> (prototypes, inline functions, GNU attributes,
# constant-expression array sizes, float and _Float128 declarations,
# anonymous unions in sigcontext) compile; an error inside
# an included file names that file and its line; cpp's own messages name
# the script, not a temporary file.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
printf '#include <stdint.h>\n#include <sys/types.h>\n#include <stdio.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <stdlib.h>\n#include <stddef.h>\n#include <time.h>\n#include <signal.h>\n\nBEGIN\n{\n\ttrace((uint32_t)7);\n\texit(0);\n}\n' > a.d
$DTRACE -q -C -s a.d || exit 1
echo
printf 'int x = ;\n' > bad.h
printf '#include "bad.h"\nBEGIN { exit(0); }\n' > b.d
$DTRACE -q -C -I. -s b.d 2>&1
printf '\n\nBEGIN { x = ; }\n' > c.d
$DTRACE -q -C -s c.d 2>&1
printf '#include <nonexist.h>\nBEGIN { exit(0); }\n' > d.d
$DTRACE -q -C -s d.d 2>&1 | grep -c 'dtui-cpp'
$DTRACE -q -C -s d.d 2>&1 | grep -c '^d.d:1'
exit 0
