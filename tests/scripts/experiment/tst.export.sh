#!/bin/sh
# asserts: -x oformat=chrome writes trace-event JSON that parses: one
# instant event per probe firing on its CPU's track with the text dtrace
# prints, entry/return probes as B/E slices named by function, counter
# events for aggregations (the last equal to the final value) and drops;
# the same from an experiment with -r.  -x oformat=folded writes one
# collapsed-stack line per stack() entry whose frames (root first) and
# count match the aggregation as text prints it, live and with -r.
command -v python3 > /dev/null || { echo "no python3 to parse the JSON"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root for syscall and profile probes"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cat > ticks.d <<'EOD'
int i;
tick-10ms { printf("t %d\n", i++); @c["ticks"] = count(); }
tick-10ms /i == 20/ { exit(0); }
EOD
"$DTRACE" -q -x switchrate=10ms -x record=t.er -x oformat=chrome -s ticks.d > live.json 2> err ||
    { cat err; exit 1; }
"$DTRACE" -r t.er -x oformat=chrome > replay.json 2> err || { cat err; exit 1; }
"$DTRACE" -r t.er -x oformat=text > replay.txt 2> err || { cat err; exit 1; }
[ "$(grep -c '^t ' replay.txt)" -eq 20 ] || { echo "text replay:"; cat replay.txt; exit 1; }
python3 - live.json replay.json replay.txt <<'EOP' || exit 1
import json, sys
text = [l + "\n" for l in open(sys.argv[3]).read().split("\n") if l.startswith("t ")]
for f in sys.argv[1:3]:
    ev = json.load(open(f))
    inst = [e for e in ev if e["ph"] == "i" and e["args"]["text"] != ""]
    assert len(inst) == 20, (f, len(inst))
    assert all(e["args"]["probe"] == "profile:::tick-10ms" for e in inst), f
    assert sorted(e["args"]["text"] for e in inst) == sorted(text), (f, inst[:3])
    assert all(isinstance(e["ts"], float) and e["ts"] > 0 for e in inst), f
    names = {e["tid"] for e in ev if e["ph"] == "M"}
    assert {e["tid"] for e in inst} <= names, (f, "unnamed CPU track")
    c = [e for e in ev if e["ph"] == "C" and e["name"] == "@c"]
    assert c and c[-1]["args"]["ticks"] == 20, (f, c[-1:])
    assert [e for e in ev if e["ph"] == "C" and e["name"] == "drops"], f
EOP

# entry/return as slices
"$DTRACE" -q -x oformat=chrome -c "head -c 300000 /dev/zero" -o rw.json \
    -n 'syscall::read:entry,syscall::read:return /pid == $target/ { trace(arg0); }' \
    > /dev/null 2> err || { cat err; exit 1; }
python3 - rw.json <<'EOP' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))
b = [e for e in ev if e["ph"] == "B"]
e_ = [e for e in ev if e["ph"] == "E"]
assert len(b) >= 3 and abs(len(b) - len(e_)) <= 1, (len(b), len(e_))
assert all(e["name"] == "read" for e in b + e_)
assert all(e["args"]["probe"] == "syscall::read:entry" for e in b)
EOP

# folded stacks against the aggregation
"$DTRACE" -q -x record=s.er -n 'profile-997 { @[stack()] = count(); } tick-300ms { exit(0); }' \
    > stacks.txt 2> err || { cat err; exit 1; }
"$DTRACE" -r s.er -x oformat=folded > folded 2> err || { cat err; exit 1; }
"$DTRACE" -q -x oformat=folded -n 'profile-997 { @[stack()] = count(); } tick-300ms { exit(0); }' \
    > live.folded 2> err || { cat err; exit 1; }
python3 - stacks.txt folded live.folded <<'EOP' || exit 1
import sys, collections
# text: a stack's frames, one per line, then its count alone on a line
agg = collections.Counter()
frames = []
for line in open(sys.argv[1]).read().split("\n"):
    s = line.strip()
    if not s:
        continue
    if s.isdigit():
        agg[";".join(reversed(frames))] += int(s)
        frames = []
    else:
        frames.append(s)
folded = collections.Counter()
for line in open(sys.argv[2]):
    if line.strip():
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        folded[stack] += int(n)
assert sum(agg.values()) > 0, "no samples"
assert folded == agg, (len(folded), len(agg), list(folded.items())[:2], list(agg.items())[:2])
live = [l for l in open(sys.argv[3]) if l.strip()]
assert any("`" in l for l in live), live[:3]
assert all(l.rstrip("\n").rsplit(" ", 1)[1].isdigit() for l in live), live[:3]
EOP
exit 0
