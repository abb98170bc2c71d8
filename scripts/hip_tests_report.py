#!/usr/bin/env python3
"""The verdict of a hip-tests run (scripts/hip-tests.sh): which executables built, which test
cases passed, failed or skipped (as ctest counts them), a table per unit folder, and the
comparison with the expected-failures list.

The list (tests/hip-tests-expected.tsv) has one entry a line, tab-separated:
    build   <folder>/<executable>   <reason>     an executable expected not to build
    test    <test case name>        <reason>     a test case expected to fail
    varies  <test case name>        <reason>     a test case whose outcome depends on the machine or timing
Each reason names the missing feature (for `varies`, on which machines the case fails and why).
The run fails on a failure that is not listed and on a listed `build` or `test` entry that now
works, so that the list stays true; a `varies` case may pass or fail.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict


def build_test_targets(build):
    """(folder, name, linked) of every target `make build_tests` depends on, from CMake's
    Makefile2: the executables and libraries it links (`linked`: they have a link rule,
    CMakeFiles/<target>.dir/link.txt) and the files their tests need (code objects compiled
    with --genco, a library loaded with dlopen), which are custom targets."""
    found = []
    tests_root = os.path.join(build, "catch_tests")
    rule = "CMakeFiles/build_tests.dir/all:"
    with open(os.path.join(build, "CMakeFiles", "Makefile2")) as f:
        deps = [l.split(":", 1)[1].strip() for l in f if l.startswith(rule)]
    for dep in deps:
        target_dir = os.path.join(build, os.path.dirname(dep))  # .../CMakeFiles/<target>.dir
        name = os.path.basename(target_dir)[: -len(".dir")]
        owner = os.path.dirname(os.path.dirname(target_dir))
        linked = os.path.isfile(os.path.join(target_dir, "link.txt"))
        found.append((os.path.relpath(owner, tests_root), name, linked))
    return sorted(found)


def executables(build):
    """(folder, name, built) of every executable and library that `make build_tests` links."""
    return [
        (folder, name, os.path.isfile(os.path.join(build, "catch_tests", folder, name)))
        for folder, name, linked in build_test_targets(build)
        if linked
    ]


def test_folders(build):
    """Test case name -> the folder of the executable that runs it (ctest's own view)."""
    shown = subprocess.run(
        ["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True
    )
    if shown.returncode != 0:
        return {}
    tests_root = os.path.join(build, "catch_tests")
    folders = {}
    for test in json.loads(shown.stdout).get("tests", []):
        command = test.get("command") or []
        where = next(
            (p["value"] for p in test.get("properties", []) if p["name"] == "WORKING_DIRECTORY"),
            os.path.dirname(command[0]) if command else tests_root,
        )
        folders[test["name"]] = os.path.relpath(where, tests_root)
    return folders


def first_failure_line(output):
    """The line of a failed test's output that says most about why."""
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    for pattern in (r"hipmlir: ", r"error", r"FAILED", r"REQUIRE", r"Timeout", r"Segmentation"):
        for line in lines:
            if re.search(pattern, line, re.IGNORECASE):
                return line[:200]
    return lines[-1][:200] if lines else "no output"


def results(junit):
    """Test case name -> (outcome, why) from ctest's JUnit file."""
    out = {}
    if not os.path.isfile(junit):
        return out
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        status = case.get("status", "run")
        output = "".join(e.text or "" for e in case.iter("system-out"))
        failure = case.find("failure")
        if case.find("skipped") is not None or status in ("notrun", "disabled"):
            out[name] = ("skipped", first_failure_line(output))
        elif failure is not None or status == "fail":
            why = first_failure_line(output)
            if failure is not None and "Timeout" in (failure.get("message") or ""):
                why = "Timeout"
            out[name] = ("failed", why)
        else:
            out[name] = ("passed", "")
    return out


# The kinds of entries of the expected-failures list.
KINDS = ("build", "test", "varies")


def read_expected(path):
    listed = {}
    if not os.path.isfile(path):
        return listed
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or parts[0] not in KINDS or not parts[2].strip():
                sys.exit(f"hip-tests: {path}:{number}: expected 'build|test|varies<TAB>name<TAB>reason'")
            listed[(parts[0], parts[1])] = parts[2]
    return listed


def write_expected(path, entries, inherited_from=()):
    header = [
        "# hip-tests expected failures (scripts/hip-tests.sh checks them; make hip-tests).",
        "# kind<TAB>name<TAB>reason: `build <folder>/<executable>` does not build, `test <case>`",
        "# fails, `varies <case>` passes or fails by the machine or by timing. The reason names the missing",
        "# feature (for `varies`, where and why the case fails).",
    ]
    for inherited in inherited_from:
        header.append(
            f"# The entries of {os.path.basename(inherited)} hold here too: this list has what this mode adds."
        )
    with open(path, "w") as f:
        f.write("\n".join(header) + "\n")
        for (kind, name), reason in sorted(entries.items()):
            f.write(f"{kind}\t{name}\t{reason}\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--junit", required=True, nargs="+", help="ctest's JUnit file(s)")
    parser.add_argument(
        "--expected",
        required=True,
        nargs="+",
        help="the lists whose entries all hold (RTC mode: the normal run's, then its own); "
        "--update-expected rewrites the last with what the others do not list",
    )
    parser.add_argument("--table", required=True)
    parser.add_argument("--update-expected", action="store_true")
    parser.add_argument("--partial", action="store_true", help="only some tests ran (-R)")
    parser.add_argument(
        "--part", help="only the executables of folders matching this regex were built and run"
    )
    parser.add_argument(
        "--list",
        choices=["targets", "folders"],
        help="print the --part's targets (executables and the files their tests need) or folders",
    )
    args = parser.parse_args()

    exes = executables(args.build)
    if args.part:
        exes = [e for e in exes if re.search(args.part, e[0])]
    if args.list == "targets":
        # The executables and the files their tests need, as `make build_tests` builds them.
        targets = build_test_targets(args.build)
        picked = [n for f, n, _ in targets if not args.part or re.search(args.part, f)]
        print(" ".join(sorted(set(picked))))
        return 0
    if args.list == "folders":
        print(" ".join(sorted({f for f, _, _ in exes})))
        return 0
    folders = test_folders(args.build)
    outcome = {}
    for junit in args.junit:
        outcome.update(results(junit))
    inherited = {}
    for path in args.expected[:-1]:
        inherited.update(read_expected(path))
    listed = dict(inherited)
    listed.update(read_expected(args.expected[-1]))

    rows = defaultdict(lambda: {"exes": 0, "built": 0, "passed": 0, "failed": 0, "skipped": 0})
    for folder, _, built in exes:
        rows[folder]["exes"] += 1
        rows[folder]["built"] += built
    for name, (kind, _) in outcome.items():
        rows[folders.get(name, "?")][kind] += 1

    lines = [
        "| folder | executables built | passed | failed | skipped |",
        "|---|---:|---:|---:|---:|",
    ]
    total = defaultdict(int)
    for folder in sorted(rows):
        r = rows[folder]
        for k, v in r.items():
            total[k] += v
        lines.append(
            f"| {folder} | {r['built']}/{r['exes']} | {r['passed']} | {r['failed']} | {r['skipped']} |"
        )
    unit = defaultdict(int)
    for folder, r in rows.items():
        if folder.startswith("unit/"):
            for k, v in r.items():
                unit[k] += v

    def rate(t):
        ran = t["passed"] + t["failed"]
        return 100.0 * t["passed"] / ran if ran else 0.0

    for label, t in (("unit/*", unit), ("**all**", total)):
        lines.append(
            f"| {label} | {t['built']}/{t['exes']} | {t['passed']} | {t['failed']} "
            f"| {t['skipped']} |"
        )
    summary = (
        f"hip-tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} "
        f"skipped ({rate(total):.1f} % of the cases run pass); {total['built']} of "
        f"{total['exes']} executables built; unit folders: {unit['built']} of {unit['exes']} "
        f"executables, {unit['passed']} passed, {unit['failed']} failed ({rate(unit):.1f} %)"
    )
    table = "\n".join(lines)
    with open(args.table, "w") as f:
        f.write(table + "\n\n" + summary + "\n")
    print(table)
    print()

    # What this run says should be listed.
    now = {}
    for folder, name, built in exes:
        if not built:
            key = ("build", f"{folder}/{name}")
            now[key] = listed.get(key, "does not build: see the build log (build/hip-tests/<mode>/build.log)")
    varying_failed = 0
    for name, (kind, why) in outcome.items():
        if kind == "failed":
            if ("varies", name) in listed:
                now[("varies", name)] = listed[("varies", name)]
                varying_failed += 1
                continue
            key = ("test", name)
            now[key] = listed.get(key, f"unclassified: {why}")

    unexpected_failures = sorted(k for k in now if k not in listed)
    unexpected_passes = []
    for key in sorted(listed):
        kind, name = key
        if key in now or kind == "varies":
            continue
        if kind == "build":
            if any(f"{f}/{n}" == name for f, n, built in exes if built):
                unexpected_passes.append(key)
        elif name in outcome and outcome[name][0] != "failed":
            unexpected_passes.append(key)
        # A listed test that did not run (its executable did not build, or -R left it out)
        # says nothing either way.

    if args.update_expected:
        kept = dict(now)
        # A case that depends on the machine stays listed whichever way it went here.
        kept.update({k: r for k, r in listed.items() if k[0] == "varies"})
        if args.partial or args.part:
            # What this run did not cover stays as it was: tests it did not run, and the
            # executables of folders outside its part.
            for key, reason in listed.items():
                kind, name = key
                if kind in ("test", "varies") and name not in outcome:
                    kept[key] = reason
                elif kind == "build" and args.part and not re.search(args.part, os.path.dirname(name)):
                    kept[key] = reason
        own = {k: r for k, r in kept.items() if inherited.get(k) != r}
        write_expected(args.expected[-1], own, args.expected[:-1])
        print(f"hip-tests: wrote {len(own)} entries to {args.expected[-1]}")

    print(summary)
    varying = sum(1 for kind, name in listed if kind == "varies" and name in outcome)
    if varying:
        print(
            f"hip-tests: {varying} case(s) listed as depending on the machine or timing ran: "
            f"{varying_failed} failed here, {varying - varying_failed} passed"
        )
    if args.update_expected:
        return 0
    for kind, name in unexpected_failures:
        why = now[(kind, name)]
        print(f"hip-tests: unexpected failure: {kind} {name}: {why}")
    for kind, name in unexpected_passes:
        print(f"hip-tests: listed but works now (remove it from the list): {kind} {name}")
    if unexpected_failures or unexpected_passes:
        print(
            f"hip-tests: FAILED: {len(unexpected_failures)} unexpected failure(s), "
            f"{len(unexpected_passes)} listed entr(y/ies) that now work"
        )
        return 1
    lists = " and ".join(os.path.relpath(p) for p in args.expected)
    print(f"hip-tests: OK (every failure is listed in {lists})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
