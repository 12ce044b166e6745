#!/usr/bin/env python3
"""Every reason code the source emits is explained in docs/reason-codes.md, and
the table explains no code the source no longer emits.

Usage: reason_codes_test.py REPOSITORY_ROOT  (exit 0: they agree; 1: they do not)

Which literals are reason codes. The judge writes a code as a whole C++ string
literal in UPPER_SNAKE case ("IB_PORT_DOWN", at least one underscore); some reach
Reason::code directly (Reason{"PAIR_BAD", ...}, reason("GPU_MISSING", ...)),
others through a table or a variable first (the counter rules in
health/local_health.cpp, Measurement::low_code and outlier_code in
health/thresholds.cpp). So the rule is by literal, not by call: every such
literal in the library and CLI sources (the folders in SOURCE_DIRS, comments
left out) is a reason code, unless NOT_CODES lists it with what it is instead
(environment variables). A new literal of that shape fails this test until it
is either in the table or in NOT_CODES, so a new code cannot slip through
undocumented; a NOT_CODES entry the source no longer has fails too. A code
built by joining strings would not be found: write codes as whole literals.

The table: rows of docs/reason-codes.md whose first cell is a code in
backticks (`IB_PORT_DOWN`); other rows (headings, group rows) are ignored.
"""
import os
import re
import sys

# The sources the binary is built from (CMakeLists.txt: ibgpu_core and cli/).
SOURCE_DIRS = ["app", "cli", "cluster", "core", "health", "probes", "reports", "scheduler"]
SOURCE_SUFFIXES = (".cpp", ".h", ".cu")
TABLE = os.path.join("docs", "reason-codes.md")
SELF = os.path.join("tests", "ci", "reason_codes_test.py")

# UPPER_SNAKE literals that are not reason codes, with what they are.
NOT_CODES = {
    "CUDA_VISIBLE_DEVICES": "environment variable: the GPUs a rank may use (the rail plan)",
    "CUDA_HOME": "environment variable: where the CUDA toolkit is",
    "NCCL_HOME": "environment variable: where NCCL is",
    "IBGPU_HOSTNAME": "environment variable: the host name a rank reports",
    "SLURM_STEP_NUM_TASKS": "environment variable: the tasks srun started (a launch that is not one job)",
    "PMIX_SIZE": "environment variable: the tasks a PMIx launcher started",
    "IBGPU_PROFILE_DIR": "environment variable: where profiles are looked up",
    "IBGPU_PROGRESS": "environment variable: live output style on stderr (terminal, plain, off)",
    "OMPI_COMM_WORLD_RANK": "environment variable set by the MPI launcher",
    "OMPI_COMM_WORLD_SIZE": "environment variable set by the MPI launcher",
    "PMIX_RANK": "environment variable set by the MPI launcher",
    "PMI_RANK": "environment variable set by the MPI launcher",
    "PMI_SIZE": "environment variable set by the MPI launcher",
    "MPI_LOCALNRANKS": "environment variable set by the MPI launcher",
    "SLURM_PROCID": "environment variable set by srun",
}

# Source files whose UPPER_SNAKE literals name codes without emitting them: a
# lookup table keyed by the codes would otherwise keep a code the judge no
# longer writes looking alive. (tests/reports/next_steps_test.cpp holds that
# table to the documentation's codes.)
NOT_EMITTERS = {
    os.path.join("reports", "next_steps.cpp"): "the table's next step per code",
}

CODE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def string_literals(text):
    """The contents of the string literals of C++ source text, comments skipped.

    Handles // and /* */ comments, escapes in "..." and '...', and raw strings
    R"delim(...)delim" (the kernel log's regular expressions)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == "R" and text.startswith('R"', i) and raw_prefix_ok(text, i):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            close = text.find(")" + delim + '"', open_paren + 1)
            if open_paren < 0 or close < 0:
                raise ValueError("unterminated raw string at offset %d" % i)
            out.append(text[open_paren + 1:close])
            i = close + len(delim) + 2
        elif c == '"' or (c == "'" and not digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append(text[i + 1:j])
            i = j + 1
        else:
            i += 1
    return out


def raw_prefix_ok(text, i):
    """R" starts a raw string when R is not the tail of an identifier (u8R", LR" are prefixes)."""
    start = i
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:i] in ("", "u8", "u", "U", "L")


def digit_separator(text, i):
    """1'000'000: a quote between digits of a number is no character literal."""
    return i > 0 and text[i - 1].isalnum() and i + 1 < len(text) and text[i + 1].isalnum() and \
        re.search(r"\b\d[\w']*$", text[max(0, i - 40):i]) is not None


def codes_in_source(root):
    """Reason codes -> the files that write them; and the NOT_CODES entries seen."""
    codes, seen_not_codes = {}, set()
    for folder in SOURCE_DIRS:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            raise SystemExit("FAIL: source folder %s not found (SOURCE_DIRS in %s)" % (top, SELF))
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                if os.path.relpath(path, root) in NOT_EMITTERS:
                    continue
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for literal in string_literals(text):
                    if not CODE.fullmatch(literal):
                        continue
                    if literal in NOT_CODES:
                        seen_not_codes.add(literal)
                    else:
                        codes.setdefault(literal, set()).add(os.path.relpath(path, root))
    return codes, seen_not_codes


def codes_in_table(root):
    """Codes of the table's rows -> line numbers (a list: a code listed twice is an error)."""
    rows = {}
    path = os.path.join(root, TABLE)
    if not os.path.isfile(path):
        raise SystemExit("FAIL: %s not found" % path)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.lstrip().startswith("|"):
                continue
            first = line.strip().strip("|").split("|")[0].strip()
            m = re.fullmatch(r"`(" + CODE.pattern + r")`", first)
            if m:
                rows.setdefault(m.group(1), []).append(number)
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: reason_codes_test.py REPOSITORY_ROOT")
    root = sys.argv[1]
    source, seen_not_codes = codes_in_source(root)
    table = codes_in_table(root)
    problems = []
    for code in sorted(set(source) - set(table)):
        problems.append("%s: emitted in %s but not in the table of %s" % (code, ", ".join(sorted(source[code])), TABLE))
    for code in sorted(set(table) - set(source)):
        problems.append("%s: in the table of %s (line %s) but no source writes it" %
                        (code, TABLE, ", ".join(map(str, table[code]))))
    for code in sorted(c for c, lines in table.items() if len(lines) > 1):
        problems.append("%s: listed %d times in %s (lines %s)" %
                        (code, len(table[code]), TABLE, ", ".join(map(str, table[code]))))
    for literal in sorted(set(NOT_CODES) - seen_not_codes):
        problems.append("%s: listed in NOT_CODES of %s but no longer in the source: remove it there" % (literal, SELF))
    if len(source) < 10:
        problems.append("only %d reason codes found in %s: is the scan still right?" % (len(source), SOURCE_DIRS))
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print("%d problem(s). A new code needs a row in %s (code, entity, state, when it fires, what to do); "
              "a new UPPER_SNAKE literal that is no reason code goes into NOT_CODES in %s." %
              (len(problems), TABLE, SELF))
        return 1
    print("reason codes: %d in the source, %d in %s: ok" % (len(source), len(table), TABLE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
