#!/usr/bin/python3
"""Run every extracted Relax program through tvmc: check, round trip, fmt fixed point, build.

usage: measure.py BUILD_DIR PROGRAMS_DIR MANIFEST [OUT.json]

For each program: `tvmc check` (parse + well-formedness); the round trip of
roundtrip.c (parse -> print -> parse structurally equal, print a fixed point; the
tool is compiled into BUILD_DIR/upstream-relax-roundtrip against BUILD_DIR's static
libraries when missing or older than its source); `tvmc fmt` twice (fixed point);
and for modules with a static `main` (manifest "static_main") `tvmc build`.
Prints the rates and the failures grouped by their first error line (numbers as N).
JOBS=n runs n programs at once (default 2); ONLY=substr filters the programs.
"""
import collections
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile

BUILD, PDIR, MANIFEST = sys.argv[1], sys.argv[2], sys.argv[3]
OUT = sys.argv[4] if len(sys.argv) > 4 else None
ONLY = os.environ.get("ONLY")
TVMC = os.path.join(BUILD, "tools", "tvmc")
HERE = os.path.dirname(os.path.abspath(__file__))
ROUNDTRIP = os.path.join(BUILD, "upstream-relax-roundtrip")


def build_roundtrip():
    src = os.path.join(HERE, "roundtrip.c")
    if os.path.exists(ROUNDTRIP) and os.path.getmtime(ROUNDTRIP) >= os.path.getmtime(src):
        libs_newer = any(os.path.getmtime(os.path.join(BUILD, l)) > os.path.getmtime(ROUNDTRIP)
                         for l in LIBS)
        if not libs_newer:
            return
    subprocess.check_call(["cc", "-O2", "-I", os.path.join(HERE, "..", "..", "include"), "-o",
                           ROUNDTRIP, src] + [os.path.join(BUILD, l) for l in LIBS] +
                          ["-ldl", "-lm", "-pthread"])


LIBS = ["libscript/libtvmscript.a", "librelax/libtvmrelax.a", "libtir/libtvmtir.a",
        "libtvmffi/libtvmffi.a"]


def run(args, timeout=120):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def norm(msg):
    msg = re.sub(r"\S+\.py:\d+:\d+: ", "", msg)
    msg = re.sub(r"`[^`]*`", "`X`", msg) if os.environ.get("COARSE") else msg
    return re.sub(r"\d+", "N", msg)[:140]


def first_error(err):
    for line in err.splitlines():
        line = line.strip()
        m = re.search(r"(\w*Error)[:\s](.*)", line)
        if m:
            return norm(m.group(1) + ": " + m.group(2).strip())
    lines = [l for l in err.splitlines() if l.strip()]
    return norm(lines[0]) if lines else "(no message)"


def one(m):
    tmp = tempfile.mkdtemp()
    path = os.path.join(PDIR, m["id"] + ".py")
    r = {"id": m["id"], "static_main": m["static_main"]}
    rc, out, err = run([TVMC, "check", path])
    r["check"] = rc == 0
    if rc:
        r["check_err"] = first_error(err + out)
    rc, out, err = run([ROUNDTRIP, path])
    line = out.strip()
    r["parse"] = not line.startswith("FAIL %s: parse:" % path) and bool(line)
    r["roundtrip"] = line.startswith("OK ")
    if not r["roundtrip"]:
        why = line.split(": ", 1)[1] if ": " in line else (err.strip() or "crash rc=%d" % rc)
        r["roundtrip_err"] = norm(why)
    r["fixed"] = False
    if r["parse"]:
        p1 = os.path.join(tmp, "p1.py")
        rc1, o1, e1 = run([TVMC, "fmt", path, "-o", p1])
        rc2, o2, e2 = run([TVMC, "fmt", p1]) if rc1 == 0 else (1, "", "")
        if rc1 == 0 and rc2 == 0 and open(p1).read() == o2:
            r["fixed"] = True
        else:
            r["fmt_err"] = first_error(e1 + e2) if (rc1 or rc2) else "not a fixed point"
    r["build"] = None
    if m["static_main"] and r["check"]:
        rc, out, err = run([TVMC, "build", path, "-o", os.path.join(tmp, "m.so")], timeout=300)
        r["build"] = rc == 0
        if rc:
            r["build_err"] = first_error(err + out)
    print("%-80s check=%d rt=%d fixed=%d build=%s %s" % (
        r["id"][:80], r["check"], r["roundtrip"], r["fixed"], r["build"],
        r.get("check_err") or r.get("roundtrip_err") or r.get("fmt_err") or r.get("build_err")
        or ""), flush=True)
    return r


def pct(a, b):
    return "%d/%d (%.1f%%)" % (a, b, 100.0 * a / max(b, 1))


def report(rows):
    n = len(rows)
    print("\nprograms %d: parse %s, check %s, round trip %s, fmt fixed point %s" % (
        n, pct(sum(r["parse"] for r in rows), n), pct(sum(r["check"] for r in rows), n),
        pct(sum(r["roundtrip"] for r in rows), n), pct(sum(r["fixed"] for r in rows), n)))
    st = [r for r in rows if r["static_main"]]
    print("modules with a static main %d: build %s (of all %d; %d that check)" % (
        len(st), pct(sum(bool(r["build"]) for r in st), len(st)), len(st),
        sum(r["check"] for r in st)))
    for key in ("check_err", "roundtrip_err", "fmt_err", "build_err"):
        c = collections.Counter(r[key] for r in rows if r.get(key))
        if c:
            print("\n%s:" % key)
            for msg, k in c.most_common(40):
                print("  %4d  %s" % (k, msg))
    if OUT:
        with open(OUT, "w") as f:
            json.dump(rows, f, indent=0)


def main():
    build_roundtrip()
    manifest = json.load(open(MANIFEST))
    todo = [m for m in manifest if not ONLY or ONLY in m["id"]]
    with multiprocessing.Pool(int(os.environ.get("JOBS", "2"))) as pool:
        rows = pool.map(one, todo)
    report(rows)


if __name__ == "__main__":
    main()
