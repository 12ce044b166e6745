#!/usr/bin/env python3
"""The report checks of tests/mpi/usage_test.sh: usage_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def unknown_flag(r):
    """The JSON error document of --no-such-flag: exit code 64, the message naming the flag."""
    assert r["summary"]["exit_code"] == 64 and "no-such-flag" in r["error"]["message"]


def config_error(r):
    """The JSON error document of a configuration error: exit code 64, an error."""
    assert r["summary"]["exit_code"] == 64 and "error" in r, r


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
