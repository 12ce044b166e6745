#!/usr/bin/env python3
"""The commands the docs show are commands the binary takes.

Usage: commands_test.py --ibgpu BINARY --source REPOSITORY_ROOT [--docs PATH ...]
  (exit 0: so; 1: not so, each failure listed as file:line: the command: what is wrong)

Reads README.md and docs/*.md (or the files and folders --docs names) and, in their fenced code
blocks (```sh, ```bash, ```shell, ```console, and ``` with no language: there only `$ ` lines and
lines that start with a launcher, a path under ci/ or tests/, or the binary, are commands):
- every command line that runs ibgpu (as `ibgpu`, `build/ibgpu`, `/usr/bin/ibgpu`,
  `/opt/ibgpu/bin/ibgpu`, ..., also after `VAR=value`, `sudo`, `exec`, `mpirun ...`, `srun ...`
  or in a pipe) names a command that `ibgpu --help` lists (and a `probe` command that
  `ibgpu probe --help` lists), and each `--option` or `-x` given to ibgpu is in that command's
  `--help` (`--opt=value` counts as `--opt`; the launcher's own options before the binary are not
  ibgpu's; `\\` continues a line, `#` starts a comment, `<placeholders>` and `...` are skipped);
- the lines this machine can run at once and safely are run, each with a 60 s limit, and must
  exit as the page says: 0, unless the line's comment names another ("exit 1"). Run: `--help`
  and `--version`, `explain`, `probe list` (without a --json file), `simulate`, and `report` of
  files under tests/data (without --output, --json or --baseline-out). Never run: check,
  burn-in, allreduce, inventory, probe bw/lat, history, anything under a launcher or sudo or with
  a VAR=value before it, anything whose output is redirected to a file;
- every path under ci/ or tests/ named in a code block exists;
- every relative link of the pages resolves to a file, and its #anchor to a heading there
  (GitHub's anchors: lower case, punctuation dropped, spaces made hyphens).
Python 3 standard library only.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

SHELL_LANGS = {"sh", "bash", "shell", "console", ""}
LAUNCHERS = {"mpirun", "mpiexec", "srun", "sudo", "exec", "timeout", "env", "nice", "time", "salloc", "sbatch"}
SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", "|&"}
PLACEHOLDER = re.compile(r"<[A-Za-z][^<>\s]*(?: [^<>\s]+)*>")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SCRIPT_PATH = re.compile(r"^(?:\./)?((?:ci|tests)/[A-Za-z0-9_./*-]+)$")
EXIT_IN_COMMENT = re.compile(r"\bexit (\d+)\b")
RUN_TIMEOUT_S = 60
MIN_CHECKED = 30  # ibgpu command lines the README and docs/ hold at least (41 when written)
# Settings of /etc/default/ibgpu that hold options of an ibgpu command.
EXTRA_ARGS = {"IBGPU_CHECK_ARGS": "check", "IBGPU_BURN_IN_OPTIONS": "burn-in"}
VERBOSE = False


def is_binary(token):
    """ibgpu itself, as the docs name it: on PATH, in a build tree, or installed under a prefix."""
    return token == "ibgpu" or token.endswith("/bin/ibgpu") or token == "build/ibgpu" or token.endswith("/build/ibgpu")


class Help:
    """The commands and options the binary's --help lists."""

    OPTION = re.compile(r"^\s+((?:-[A-Za-z0-9]|--[A-Za-z0-9][\w-]*)(?:,(?:-[A-Za-z0-9]|--[A-Za-z0-9][\w-]*))*)(?=\s|$)")

    def __init__(self, binary):
        self.binary = binary
        self.cache = {}
        top = self.text([])
        self.commands = self.subcommands(top)
        if not self.commands:
            raise SystemExit("commands_test: `%s --help` lists no subcommands:\n%s" % (binary, top))
        self.probe_commands = self.subcommands(self.text(["probe"])) if "probe" in self.commands else set()

    def text(self, path):
        key = tuple(path)
        if key not in self.cache:
            out = subprocess.run([self.binary, *path, "--help"], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            if out.returncode != 0:
                raise SystemExit("commands_test: `%s %s --help` exited %d: %s"
                                 % (self.binary, " ".join(path), out.returncode, out.stderr.strip()))
            self.cache[key] = out.stdout
        return self.cache[key]

    @staticmethod
    def subcommands(text):
        names, inside = set(), False
        for line in text.splitlines():
            if line.startswith("Subcommands:"):
                inside = True
            elif inside and re.match(r"^\s+\S", line):
                names.add(line.split()[0])
            elif inside and line.strip() == "":
                inside = False
            elif inside:
                inside = False
        return names

    def options(self, path):
        names = set()
        for line in self.text(path).splitlines():
            m = self.OPTION.match(line)
            if m:
                names.update(m.group(1).split(","))
        return names


class Failures(list):
    def add(self, where, command, what):
        self.append("%s: %s\n    %s" % (where, command, what))


def doc_files(source, docs):
    if not docs:
        return [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    files = []
    for d in docs:
        files += sorted(glob.glob(os.path.join(d, "*.md"))) if os.path.isdir(d) else [d]
    return files


def code_blocks(lines):
    """(language, [(line number, text), ...]) for each fenced block."""
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        body, i = [], i + 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3]):
            body.append((i + 1, lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i]))
            i += 1
        blocks.append((lang, body))
        i += 1
    return blocks


def logical_lines(lang, body):
    """(first line number, command text, comment) of each command in a block: continuations joined."""
    out, pending, start = [], "", None
    for number, text in body:
        line = text.rstrip()
        if pending:
            line = pending + " " + line.lstrip()
        elif lang in ("console", ""):
            if line.startswith("$ "):
                line = line[2:]
            elif lang == "console" or not looks_like_command(line):
                continue
        if start is None:
            start = number
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if open_quote(line):
            pending = line
            continue
        pending = ""
        command, comment = split_comment(line)
        if command.strip():
            out.append((start, command.strip(), comment))
        start = None
    return out


def looks_like_command(line):
    words = line.split()
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False
    first = words[0]
    return first in LAUNCHERS or is_binary(first) or bool(SCRIPT_PATH.match(first)) or first in ("python3", "bash")


def open_quote(line):
    """Whether a quote is still open at the end of the line (a quoted word goes on below)."""
    quote = None
    for i, c in enumerate(split_comment(line)[0]):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or line[i - 1] != "\\"):
            quote = c
    return quote is not None


def split_comment(line):
    """The command and its comment: a # at the start of a word and outside quotes begins it."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                continue
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i], line[i + 1:].strip()
    return line, ""


def tokens_of(command):
    """Shell words, with separators as words of their own and redirections gone."""
    command = PLACEHOLDER.sub("PLACEHOLDER", command)
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    words = list(lexer)
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w and set(w) <= set("<>&") and ("<" in w or ">" in w):
            if out and re.fullmatch(r"[0-9]", out[-1]):
                out.pop()
            skip = True  # the file or descriptor it names
            continue
        out.append(w)
    return out


def simple_commands(tokens):
    cmd = []
    for t in tokens:
        if t in SEPARATORS:
            if cmd:
                yield cmd
            cmd = []
        else:
            cmd.append(t)
    if cmd:
        yield cmd


def redirected(command):
    """Output sent to a file anywhere on the line: `> f`, `>>f`, `2>f`, `cmd>f` (not `2>&1`)."""
    return bool(re.search(r"\d?>{1,2}(?!&)", PLACEHOLDER.sub("X", command)))


def check_invocation(words, where, text, comment, helps, source, binary, failures, counts):
    """One simple command: if it runs ibgpu, check it against --help and maybe run it."""
    lead = 0
    while lead < len(words) and ASSIGNMENT.match(words[lead]):
        lead += 1
    for w in words[:lead]:
        # /etc/default/ibgpu: the options the health check and the service add to `ibgpu check`,
        # and the burn-in job to `ibgpu burn-in`
        name, _, value = w.partition("=")
        if name in EXTRA_ARGS:
            check_invocation(["ibgpu", EXTRA_ARGS[name], *value.split()], where, text, "", helps, source, binary,
                             failures, counts)
    if lead == len(words):
        return
    first = words[lead]
    if is_binary(first):
        at = lead
    elif first in LAUNCHERS or SCRIPT_PATH.match(first):
        # the binary after the launcher's (or a lane's wrapper's) own options
        at = next((i for i in range(lead + 1, len(words)) if is_binary(words[i])), None)
    else:
        at = None
    if at is None:
        return
    counts["checked"] += 1
    args = words[at + 1:]
    if not args:
        return
    path, rest = [], args
    if args[0] in ("-h", "--help", "--version"):
        top = helps.options([]) | {"--version"}
        for a in args:
            if a.startswith("-") and a.split("=")[0] not in top:
                failures.add(where, text, "%s is not an option of ibgpu (ibgpu --help)" % a)
        runnable(path, args, words, lead, at, where, text, comment, source, binary, failures, counts)
        return
    command = args[0]
    if command in ("PLACEHOLDER", "...") or re.fullmatch(r"[A-Z]+", command):
        return
    if command not in helps.commands:
        failures.add(where, text, "'%s' is not an ibgpu command (ibgpu --help lists: %s)"
                     % (command, ", ".join(sorted(helps.commands))))
        return
    path, rest = [command], args[1:]
    if command == "probe" and rest and not rest[0].startswith("-"):
        if rest[0] not in helps.probe_commands:
            failures.add(where, text, "'probe %s' is not an ibgpu command (ibgpu probe --help lists: %s)"
                         % (rest[0], ", ".join(sorted(helps.probe_commands))))
            return
        path, rest = ["probe", rest[0]], rest[1:]
    known = helps.options(path)
    for a in rest:
        if a == "--":
            break
        if a.startswith("--") and len(a) > 2:
            names = [a.split("=", 1)[0]]
        elif re.fullmatch(r"-[A-Za-z]+", a):
            names = ["-" + c for c in a[1:]]  # -vq: -v and -q
        else:
            continue
        for name in names:
            if name not in known:
                failures.add(where, text, "%s is not an option of ibgpu %s (ibgpu %s --help)"
                             % (name, " ".join(path), " ".join(path)))
    runnable(path, rest, words, lead, at, where, text, comment, source, binary, failures, counts)


def runnable(path, rest, words, lead, at, where, text, comment, source, binary, failures, counts):
    """Run what is safe and quick here, and compare its exit code with the one the page implies."""
    if lead or at != 0 or redirected(text):
        return
    helpish = any(a in ("-h", "--help", "--version") for a in rest)
    name = " ".join(path)
    if not helpish:
        if name in ("explain", "simulate"):
            pass
        elif name == "probe list":
            if any(a == "--json" for a in rest) and rest[rest.index("--json") + 1:rest.index("--json") + 2] != ["-"]:
                return
            if any(a.startswith("--json=") and a != "--json=-" for a in rest):
                return
        elif name == "report":
            if any(a.split("=")[0] in ("--output", "--json", "--baseline-out") for a in rest):
                return
            files = [a for a in rest if not a.startswith("-") and a.endswith(".json")]
            if not files or not all(os.path.normpath(f).startswith(os.path.join("tests", "data") + os.sep)
                                    and os.path.isfile(os.path.join(source, f)) for f in files):
                return
            values = {a for i, a in enumerate(rest) if i and rest[i - 1] in ("--format", "--compare-threshold")}
            if any(not a.startswith("-") and a not in files and a not in values for a in rest):
                return
        else:
            return
    if any(a in ("PLACEHOLDER", "...") or "..." in a for a in rest):
        return
    m = EXIT_IN_COMMENT.search(comment)
    want = int(m.group(1)) if m else 0
    try:
        got = subprocess.run([binary, *path, *rest], cwd=source, stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=RUN_TIMEOUT_S, env=dict(os.environ, IBGPU_PROGRESS="off"))
    except subprocess.TimeoutExpired:
        failures.add(where, text, "ran past %d s" % RUN_TIMEOUT_S)
        return
    counts["run"] += 1
    if VERBOSE:
        print("ran %s: ibgpu %s: exit %d" % (where, " ".join(path + rest), got.returncode))
    if got.returncode != want:
        failures.add(where, text, "exit %d, the page implies %d: %s"
                     % (got.returncode, want, (got.stderr.strip() or got.stdout.strip())[-300:]))


def check_paths(words, where, text, source, failures, counts):
    for w in words:
        m = SCRIPT_PATH.match(w)
        if not m or "PLACEHOLDER" in w:
            continue
        counts["paths"] += 1
        p = m.group(1).rstrip("/")
        if not glob.glob(os.path.join(source, p)):
            failures.add(where, text, "%s does not exist in the repository" % p)


def slug(heading):
    text = re.sub(r"`", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, memo={}):
    if path not in memo:
        found, seen, fence = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if re.match(r"^\s*(```|~~~)", line):
                    fence = not fence
                    continue
                m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    s = slug(m.group(1))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    found.add(s if n == 0 else "%s-%d" % (s, n))
        memo[path] = found
    return memo[path]


def check_links(doc, lines, failures, counts):
    fence = False
    for number, line in enumerate(lines, 1):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            continue
        if fence:
            continue
        for m in re.finditer(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            counts["links"] += 1
            file_part, _, anchor = target.partition("#")
            where = "%s:%d" % (doc, number)
            path = os.path.normpath(os.path.join(os.path.dirname(doc), file_part)) if file_part else doc
            if not os.path.exists(path):
                failures.add(where, target, "the link's file does not exist")
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                failures.add(where, target, "no heading in %s has the anchor #%s" % (os.path.basename(path), anchor))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibgpu", required=True, help="the binary to ask (--help) and run")
    ap.add_argument("--source", required=True, help="the repository root")
    ap.add_argument("--docs", nargs="+", metavar="PATH",
                    help="pages to read, files or folders of *.md (default: README.md and docs/*.md)")
    ap.add_argument("--verbose", action="store_true", help="name each command run and its exit code")
    opts = ap.parse_args()
    global VERBOSE
    VERBOSE = opts.verbose
    source = os.path.abspath(opts.source)
    binary = os.path.abspath(opts.ibgpu)
    helps = Help(binary)
    failures = Failures()
    counts = {"blocks": 0, "checked": 0, "run": 0, "paths": 0, "links": 0}
    files = doc_files(source, opts.docs)
    if not files:
        print("FAIL: no pages to read")
        return 1
    for doc in files:
        with open(doc, encoding="utf-8") as f:
            lines = f.read().split("\n")
        name = os.path.relpath(doc, source) if os.path.abspath(doc).startswith(source + os.sep) else doc
        check_links(doc, lines, failures, counts)
        for lang, body in code_blocks(lines):
            if lang not in SHELL_LANGS:
                continue
            counts["blocks"] += 1
            for number, command, comment in logical_lines(lang, body):
                where = "%s:%d" % (name, number)
                try:
                    words = tokens_of(command)
                except ValueError as e:
                    if lang in ("sh", "bash", "shell"):
                        failures.add(where, command, "not a shell command line: %s" % e)
                    continue
                for simple in simple_commands(words):
                    check_paths(simple, where, command, source, failures, counts)
                    check_invocation(simple, where, command, comment, helps, source, binary, failures, counts)
    print("docs: %d pages, %d blocks, %d ibgpu command lines checked against --help, %d run, "
          "%d ci/ and tests/ paths, %d links" % (len(files), counts["blocks"], counts["checked"], counts["run"],
                                               counts["paths"], counts["links"]))
    if not opts.docs and counts["checked"] < MIN_CHECKED:
        # The pages show dozens of ibgpu command lines: fewer read means the reader missed them (a
        # fence or prompt it does not know), and a pass would check nothing.
        failures.add("(all pages)", "", "only %d ibgpu command lines found, expected at least %d"
                     % (counts["checked"], MIN_CHECKED))
    if failures:
        print("FAIL: %d problem(s) in the docs:" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
