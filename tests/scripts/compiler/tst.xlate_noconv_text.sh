# Asserts: a member the translator gives no conversion for is dtrace's
# D_XLATE_NOCONV "translator does not define conversion for member: m",
# for a declared translator and for curpsinfo's, on the line of the
# expression (as dtrace reports it, not the clause's first line).
msg=$($DTRACE -xerrtags -qn 'BEGIN { trace(curpsinfo->pr_nosuchmember); }' 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "curpsinfo: exit $rc"; exit 1; }
case $msg in
*"[D_XLATE_NOCONV] translator does not define conversion for member: pr_nosuchmember") ;;
*) echo "curpsinfo: <$msg>"; exit 1 ;;
esac
f=noconv.$$.d
printf 'struct out { int a; int b; };\ntranslator struct out < int64_t x > { a = x; };\nBEGIN\n{\n\ttrace(xlate<struct out>(1).b);\n}\n' > $f
msg=$($DTRACE -xerrtags -qs $f 2>&1)
rm -f $f
want="dtrace: failed to compile script $f: [D_XLATE_NOCONV] line 5: translator does not define conversion for member: b"
[ "$msg" = "$want" ] || { echo "declared: <$msg>"; exit 1; }
exit 0
