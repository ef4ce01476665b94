#!/usr/bin/env python3
"""Print one closing line, "N passed, N failed, N skipped", for meson test
logs (testlog.json): a TAP test counts each of its cases, any other test
counts once."""
import json
import re
import sys

TAP = re.compile(r'^(not )?ok\b[^#]*(#\s*(SKIP|TODO)\b)?', re.I)
passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        t = json.loads(line)
        cases = [TAP.match(l) for l in t.get('stdo', '').splitlines()] \
            if t.get('protocol') == 'TestProtocol.TAP' else []
        cases = [m for m in cases if m]
        if not cases:
            res = t['result']
            if res in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif res == 'SKIP':
                skipped += 1
            else:
                failed += 1
            continue
        for m in cases:
            if m.group(3) and m.group(3).upper() == 'SKIP':
                skipped += 1
            elif m.group(1):
                failed += 1
            else:
                passed += 1
        # A test that failed as a whole with all cases passing (timeout,
        # crash, bad plan) is one more failure.
        if t['result'] not in ('OK', 'SKIP', 'EXPECTEDFAIL') and \
                not any(m.group(1) for m in cases):
            failed += 1
print(f'{passed} passed, {failed} failed, {skipped} skipped')
