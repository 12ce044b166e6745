#!/usr/bin/env python3
"""Reason codes live in one table, core/reason_codes.cpp: no source spells one
as a string, and every code of the table is written by some source.

Usage: reason_codes_test.py REPOSITORY_ROOT  (exit 0: so; 1: not so)

The table (core/reason_codes.h declares the enumerators, core/reason_codes.cpp
holds a row per code: its name as reports write it, where it lands, states,
when it fires, what to do, the next step) is the one place a code is named as
text. The judge emits `ReasonCode::NAME`; reports print the row's name;
docs/reason-codes.md's table is rendered from the rows (a unit test,
ReasonCodes.TheDocumentationsTableIsTheTable, holds the page to them) and
`ibgpu explain CODE` prints one. This test checks what the compiler cannot:
- each row's enumerator and its name are the same word;
- no UPPER_SNAKE string literal in the library and CLI sources (the folders in
  SOURCE_DIRS, comments left out) outside the table, unless NOT_CODES lists it
  with what it is instead (environment variables): a code spelled as text
  elsewhere is a code the table does not own; a NOT_CODES entry the source no
  longer has fails too;
- every code of the table is used (`ReasonCode::NAME`) by a source outside
  the table and its renderers: a code no source writes is dead.
"""
import os
import re
import sys

# The sources the binary is built from (CMakeLists.txt: ibgpu_core and cli/).
SOURCE_DIRS = ["app", "cli", "cluster", "core", "health", "probes", "reports", "scheduler"]
SOURCE_SUFFIXES = (".cpp", ".h", ".cu")
SELF = os.path.join("tests", "ci", "reason_codes_test.py")

# UPPER_SNAKE literals that are not reason codes, with what they are.
NOT_CODES = {
    "NCCL_DEBUG": "environment variable: NCCL's log level, set for the capture of its log",
    "NCCL_DEBUG_FILE": "environment variable: where NCCL writes its log",
    "NCCL_DEBUG_SUBSYS": "environment variable: the parts of NCCL that log",
    "NCCL_MNNVL_ENABLE": "environment variable: NCCL's multi-node NVLink, recorded with NCCL results",
    "CUDA_VISIBLE_DEVICES": "environment variable: the GPUs a rank may use (the rail plan)",
    "CUDA_HOME": "environment variable: where the CUDA toolkit is",
    "SLURM_JOB_ID": "environment variable: the Slurm job (a report's run.launch)",
    "SLURM_JOB_NODELIST": "environment variable: the Slurm job's nodes (a report's run.launch)",
    "SLURM_STEP_ID": "environment variable: the Slurm job step (a report's run.launch)",
    "SLURM_CLUSTER_NAME": "environment variable: the Slurm cluster (a report's run.launch)",
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

# The table, and the renderers that print every row (no evidence that a code is written).
TABLE_FILES = {os.path.join("core", "reason_codes.cpp"), os.path.join("core", "reason_codes.h")}
RENDERERS = {os.path.join("reports", "reason_code_doc.cpp")}
ROW = re.compile(r'ReasonCodeInfo\{ReasonCode::(\w+), "([^"]*)"')
USE = re.compile(r"ReasonCode::([A-Z][A-Z0-9_]*)")

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


def source_files(root):
    for folder in SOURCE_DIRS:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            raise SystemExit("FAIL: source folder %s not found (SOURCE_DIRS in %s)" % (top, SELF))
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, root), f.read()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: reason_codes_test.py REPOSITORY_ROOT")
    root = sys.argv[1]
    problems, rows, spelled, used, seen_not_codes = [], [], {}, {}, set()
    for rel, text in source_files(root):
        if rel == os.path.join("core", "reason_codes.cpp"):
            rows = ROW.findall(text)
        if rel in TABLE_FILES:
            continue
        for literal in string_literals(text):
            if CODE.fullmatch(literal):
                if literal in NOT_CODES:
                    seen_not_codes.add(literal)
                else:
                    spelled.setdefault(literal, set()).add(rel)
        if rel not in RENDERERS:
            for name in USE.findall(text):
                used.setdefault(name, set()).add(rel)
    if len(rows) < 10:
        problems.append("only %d rows found in core/reason_codes.cpp: is the scan still right?" % len(rows))
    for enumerator, name in rows:
        if enumerator != name:
            problems.append("core/reason_codes.cpp: the row of ReasonCode::%s is named \"%s\"" % (enumerator, name))
        if enumerator not in used:
            problems.append("%s: in the table, but no source writes it (ReasonCode::%s)" % (enumerator, enumerator))
    for literal in sorted(spelled):
        problems.append("\"%s\" spelled as text in %s: a reason code is ReasonCode::%s; another UPPER_SNAKE "
                        "literal goes into NOT_CODES in %s" % (literal, ", ".join(sorted(spelled[literal])), literal, SELF))
    for literal in sorted(set(NOT_CODES) - seen_not_codes):
        problems.append("%s: listed in NOT_CODES of %s but no longer in the source: remove it there" % (literal, SELF))
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print("%d problem(s). A new code: an enumerator in core/reason_codes.h and its row in core/reason_codes.cpp, "
              "then IBGPU_UPDATE_GOLDEN=1 for docs/reason-codes.md." % len(problems))
        return 1
    print("reason codes: %d in the table, each written by a source, none spelled elsewhere: ok" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
