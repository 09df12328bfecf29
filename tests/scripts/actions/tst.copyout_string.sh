#!/bin/sh
# Asserts: copyout() takes a string as its source (Oracle's), whole or
# from character n, where a struct is still refused (D_PROTO_ARG).
$DTRACE -w -e -n 'syscall::write:entry { copyout("hi", arg1, 2);
    copyout(execname + 1, arg1, 2); }' ||
    { echo "copyout of a string refused"; exit 1; }
msg=$($DTRACE -xerrtags -w -e -n 'struct s { int a; } x;
    syscall::write:entry { copyout(x, arg1, 2); }' 2>&1)
echo "$msg" | grep -q 'D_PROTO_ARG' || { echo "struct source: <$msg>"; exit 1; }
exit 0
