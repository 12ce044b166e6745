#!/usr/bin/env python3
"""The report checks of tests/mpi/interrupt_stress.sh: interrupt_stress.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the check (exit 1, with the traceback).
"""
import json
import sys


def marked_interrupted(r):
    """The report of a run stopped by a signal says it was interrupted."""
    assert r["run"].get("interrupted") is True


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
