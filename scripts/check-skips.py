#!/usr/bin/env python3
"""Fail when a test skipped that CI expects to run.

Usage: check-skips.py JUNIT_XML ALLOWLIST
JUNIT_XML is ctest's --output-junit file; ALLOWLIST has one fnmatch pattern per line (a '#'
starts the reason). A skip that no pattern names is a tool the CI machine should have and
does not (or a test that stopped running): printed with the test's own skip message, exit 1.
"""
import fnmatch
import sys
import xml.etree.ElementTree as ET


def main() -> int:
    junit, allow_path = sys.argv[1], sys.argv[2]
    allowed = []
    for line in open(allow_path, encoding="utf-8"):
        pattern = line.split("#", 1)[0].strip()
        if pattern:
            allowed.append(pattern)
    unexpected = []
    skipped = 0
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("skipped") is None and case.get("status") != "skipped":
            continue
        skipped += 1
        name = case.get("name", "")
        if any(fnmatch.fnmatchcase(name, p) for p in allowed):
            continue
        out = case.findtext("system-out") or ""
        why = next((l.strip() for l in out.splitlines() if "Skipped" in l or "skip" in l.lower()), "")
        unexpected.append((name, why))
    for name, why in unexpected:
        print(f"check-skips: {name} skipped, and CI expects it to run: {why}", file=sys.stderr)
    print(f"check-skips: {skipped} skipped, {len(unexpected)} not in {allow_path}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
