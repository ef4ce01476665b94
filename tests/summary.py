#!/usr/bin/env python3
"""Print one closing line, "N passed, N failed, N skipped", for meson test
logs (meson-logs/testlog.json): a TAP test whose output tap-tee kept in
meson-logs/NAME.tap counts each of its cases, any other test counts once.
A "not ok ... # TODO reason" case is a known failure: reported, not failed."""
import json
import os
import re
import sys

TAP = re.compile(r'^(not )?ok\b[^#]*(#\s*(SKIP|TODO)\b)?', re.I)
DETAIL_LINES = 30


def failure_details(name, lines):
    """Each failed case of a TAP log with the comment lines just before it
    (what the test printed about it: tests/tap.py's ok() puts its diagnosis
    there), so that a CI log says why, not only what."""
    out = []
    for i, line in enumerate(lines):
        m = TAP.match(line)
        if not m or not m.group(1) or m.group(3):
            continue
        first = i
        while first > 0 and i - first < DETAIL_LINES and lines[first - 1].startswith('#'):
            first -= 1
        out.append(f'{name}: {line}')
        out.extend(f'    {more}' for more in lines[first:i])
    return out


passed = failed = skipped = todo = 0
failures = []
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        t = json.loads(line)
        name = t['name'].split(' / ')[-1]
        tap = os.path.join(os.path.dirname(path), name + '.tap')
        cases = []
        if os.path.exists(tap):
            tap_lines = open(tap).read().splitlines()
            cases = [m for m in map(TAP.match, tap_lines) if m]
            failures.extend(failure_details(name, tap_lines))
        if not cases:
            if t['result'] in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif t['result'] == 'SKIP':
                skipped += 1
            else:
                failed += 1
            continue
        for m in cases:
            if m.group(3) and m.group(3).upper() == 'SKIP':
                skipped += 1
            elif m.group(3) and m.group(1):
                todo += 1  # a known failure, marked "# TODO reason"
            elif m.group(1):
                failed += 1
            else:
                passed += 1
        # A test that failed as a whole with every case passing (timeout,
        # crash, bad plan) is one more failure.
        if t['result'] not in ('OK', 'SKIP', 'EXPECTEDFAIL') and \
                not any(m.group(1) for m in cases):
            failed += 1
if failures:
    print('Failed cases, with what they printed:')
    print('\n'.join(failures))
if todo:
    print(f'{todo} known failures marked TODO (counted as skipped)')
print(f'{passed} passed, {failed} failed, {skipped + todo} skipped')
