#!/bin/bash
# The JUnit output against the checked-in schema (tests/data/junit.xsd), with xmllint.
source "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || { echo "SKIP: xmllint not installed (Debian: libxml2-utils)"; exit 77; }
XSD="$DATA/junit.xsd"

# The schema is strict enough to reject a testcase without a name.
sed '0,/<testcase classname="[^"]*" name="[^"]*"/s//<testcase classname="x"/' "$GOLDEN/report.junit.xml" >"$WORK/nameless.xml"
cmp -s "$WORK/nameless.xml" "$GOLDEN/report.junit.xml" && fail "could not break the golden file"
if xmllint --noout --schema "$XSD" "$WORK/nameless.xml" 2>/dev/null; then fail "the schema accepts a testcase without a name"; fi

xmllint --noout --schema "$XSD" "$GOLDEN/report.junit.xml" || fail "golden JUnit XML is not valid"
for saved in "$GOLDEN/report.json" "$DATA/runs/before.json" "$DATA/runs/after.json"; do
  run report "$saved" --format junit --output "$WORK/junit.xml"
  [ "$rc" -eq 0 ] || fail "report --format junit $saved exited $rc"
  xmllint --noout --schema "$XSD" "$WORK/junit.xml" || fail "JUnit XML of $saved is not valid"
done
echo "junit schema: ok"
