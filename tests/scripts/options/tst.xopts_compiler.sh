#!/bin/sh
# Asserts: dtrace's compile-time options evaltime, amin, debug, disasm,
# iregs, late, ldpath, linkmode, linktype, strip, syslibdir, tree, tregs,
# useruid and verbose are accepted with the values dtrace takes and
# refused with its words otherwise ("failed to set -x NAME: Invalid value
# for specified option"); verbose and disasm list the program's DIF as -S
# does; tree prints the parse tree; iregs=N leaves the code generator N-1
# registers, so an expression that needs more is refused (D_NOREG) where
# the default 8 compile it.
bad() {	# option: must be refused with dtrace's text
	msg=$($DTRACE -x "$1" -e 2>&1)
	name=${1%%=*}
	[ "$msg" = "dtrace: failed to set -x $name: Invalid value for specified option" ] ||
	    { echo "-x $1: <$msg>"; exit 1; }
}
for o in evaltime=exec evaltime=preinit evaltime=postinit evaltime=main \
    amin=Stable amin=evolving/evolving/common debug iregs=4 late=dynamic \
    late=static ldpath=/usr/bin/ld linkmode=kernel linkmode=dynamic \
    linkmode=static linktype=elf linktype=dof strip \
    syslibdir=/usr/lib/dtrace tree=1 tregs=8 useruid=0 verbose disasm=1; do
	$DTRACE -x $o -e || { echo "-x $o refused"; exit 1; }
done
for o in evaltime evaltime=later amin=Solid amin=Stable/Stable/Common/x \
    iregs=0 iregs=x late=soon ldpath linkmode=elf linktype=coff syslibdir \
    tree=0 tregs=-1 useruid=x disasm=x; do
	bad "$o"
done
prog='BEGIN { x = 1; exit(0); }'
want=$($DTRACE -q -S -n "$prog" 2>&1 >/dev/null)
[ -n "$want" ] || { echo "-S listed nothing"; exit 1; }
for o in verbose disasm=1; do
	got=$($DTRACE -q -x $o -n "$prog" 2>&1 >/dev/null)
	[ "$got" = "$want" ] || { echo "-x $o: <$got>"; exit 1; }
done
got=$($DTRACE -q -x tree=1 -n "$prog" 2>&1 >/dev/null)
case $got in
CLAUSE*'PDESC "BEGIN"'*'IDENT "x"'*'CALL "exit"'*) ;;
*) echo "tree: <$got>"; exit 1 ;;
esac
deep='BEGIN { trace(((1 + arg0) * (2 + arg1)) + ((3 + arg2) * (4 + arg3))); exit(0); }'
$DTRACE -q -n "$deep" >/dev/null 2>&1 || { echo "8 registers refused it"; exit 1; }
msg=$($DTRACE -xerrtags -q -x iregs=3 -n "$deep" 2>&1)
case $msg in
*"[D_NOREG]"*"insufficient registers"*) ;;
*) echo "iregs=3: <$msg>"; exit 1 ;;
esac
exit 0
