#!/usr/bin/python3
"""Run every extracted program through tvmc: check, fmt fixed point, CPU build and run, and
for GPU kernels the CUDA build and the check of every GPU lowering stage in the interpreter.

usage: measure.py TVMC PROGRAMS_DIR MANIFEST [OUT.json]
Prints the pass rates and the failures grouped by their first error line.
Environment: JOBS (parallel programs, default 2), ONLY (a substring of the ids to run),
GPU_ONLY=1 (only the programs the manifest marks GPU).
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

TVMC, PDIR, MANIFEST = sys.argv[1], sys.argv[2], sys.argv[3]
OUT = sys.argv[4] if len(sys.argv) > 4 else None
ONLY = os.environ.get("ONLY")
GPU_ONLY = os.environ.get("GPU_ONLY") == "1"
# A GPU kernel launches threads; the manifest's "gpu" also marks programs that only name a GPU
# memory scope or intrinsic, which launch nothing (upstream does not build those for cuda either).
LAUNCH = re.compile(r"T\.thread_binding|T\.launch_thread|T\.env_thread")
GPU_AXIS = re.compile(r"(blockIdx|threadIdx)\.[xyz]")  # a vthread alone launches no GPU thread


def tvmc(*args, timeout=120):
    try:
        p = subprocess.run([TVMC, *args], capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def first_error(err):
    m = re.search(r"failed: (.*)", err)
    if m:
        return re.sub(r"\d+", "N", m.group(1))[:130]
    for line in err.splitlines():
        line = line.strip()
        m = re.search(r"(\w*Error|error|internal)[:\s].*", line)
        if m:
            return re.sub(r"\d+", "N", line.split(": ", 1)[-1])[:110]
    lines = [l for l in err.splitlines() if l.strip()]
    return re.sub(r"\d+", "N", lines[-1])[:110] if lines else "(no message)"


def func_names(text):
    return re.findall(r"^\s*def (\w+)\(", text, re.M)


def main():
    manifest = json.load(open(MANIFEST))
    todo = [m for m in manifest if (not ONLY or ONLY in m["id"]) and (not GPU_ONLY or m["gpu"])]
    import multiprocessing
    with multiprocessing.Pool(int(os.environ.get("JOBS", "2"))) as pool:
        rows = pool.map(one, todo)
    report(rows)


def one(m):
        tmp = tempfile.mkdtemp()
        path = os.path.join(PDIR, m["id"] + ".py")
        r = {"id": m["id"], "gpu": m["gpu"]}
        rc, out, err = tvmc("check", path)
        r["check"] = rc == 0
        r["check_err"] = "" if rc == 0 else first_error(err + out)
        r["fixed"] = False
        if r["check"]:
            p1 = os.path.join(tmp, "p1.py")
            rc1, o1, e1 = tvmc("fmt", path, "-o", p1)
            rc2, o2, e2 = tvmc("fmt", p1)
            if rc1 == 0 and rc2 == 0 and open(p1).read() == o2:
                r["fixed"] = True
            else:
                r["fmt_err"] = first_error(e1 + e2) if (rc1 or rc2) else "not a fixed point"
        r["build"] = r["run"] = None
        if r["check"] and not m["gpu"]:
            text = open(path).read()
            names = func_names(text)
            results = []
            built = True
            for fn in names if m["kind"] == "module" else [None]:
                args = ["run", path, "--repeat", "0"] + (["--func", fn] if fn else [])
                rc, out, err = tvmc(*args, timeout=180)
                tries = 0
                while rc != 0 and tries < 3:
                    mm = re.search(r"bind ([\w, ]+?) with --shape", err + out)
                    if not mm:
                        break
                    for var in mm.group(1).replace(" and ", ",").split(","):
                        if var.strip():
                            args += ["--shape", var.strip() + "=16"]
                    rc, out, err = tvmc(*args, timeout=180)
                    tries += 1
                msg = "" if rc == 0 else first_error(err + out)
                if rc != 0 and ("compilation failed" in (err + out) or rc == 124):
                    built = False
                    r["build_err"] = msg
                    break
                results.append(("ok" if rc == 0 else "fail", msg))
            r["build"] = built
            if built:
                fails = [x[1] for x in results if x[0] == "fail"]
                r["run"] = not fails
                if fails:
                    r["run_err"] = fails[0]
        if r["check"] and m["gpu"]:
            gpu_one(r, m, path, tmp)
        gpu = " cuda=%s stages=%s" % (r.get("cuda_build"), r.get("stages")) if m["gpu"] else ""
        print(("%-90s check=%d fixed=%d build=%s run=%s%s %s" % (
            r["id"][:90], r["check"], r["fixed"], r["build"], r["run"], gpu,
            r.get("check_err") or r.get("fmt_err") or r.get("build_err") or r.get("run_err")
            or r.get("cuda_build_err") or r.get("stage_err") or r.get("run_skip") or "")),
            flush=True)
        return r


def run_args(path, fn, extra):
    """tvmc run of one function, binding the symbolic sizes it asks for to 16."""
    args = ["run", path, "--repeat", "0"] + (["--func", fn] if fn else []) + extra
    rc, out, err = tvmc(*args, timeout=180)
    tries = 0
    while rc not in (0, 4) and tries < 3:
        mm = re.search(r"bind ([\w, ]+?) with --shape", err + out)
        if not mm:
            break
        for var in mm.group(1).replace(" and ", ",").split(","):
            if var.strip():
                args += ["--shape", var.strip() + "=16"]
        rc, out, err = tvmc(*args, timeout=180)
        tries += 1
    return rc, out, err


def gpu_one(r, m, path, tmp):
    """A GPU program: `tvmc build --target cuda` (the PTX made, the host code compiled), then
    `tvmc run --target cuda` of each function, which without a GPU checks every stage of the
    GPU lowering in the interpreter against the function as written (exit 4: compiled, stages
    consistent, not run)."""
    text = open(path).read()
    r["kernel"] = bool(LAUNCH.search(text)) and bool(GPU_AXIS.search(text))
    r["cuda_build"] = r["stages"] = None
    if not r["kernel"]:
        return
    rc, out, err = tvmc("build", path, "--target", "cuda", "-o", os.path.join(tmp, "k.so"),
                        timeout=180)
    r["cuda_build"] = rc == 0
    if rc != 0:
        r["cuda_build_err"] = first_error(err + out)
        return
    fails, checked = [], 0
    for fn in func_names(text) if m["kind"] == "module" else [None]:
        rc, out, err = run_args(path, fn, ["--target", "cuda"])
        if rc == 4 and "tvmc run: skipped" in err:
            if "the GPU lowering stages are not checked" in err:
                r["run_skip"] = "stages not checked (raw pointer argument)"
            else:
                checked += 1
            continue
        if rc == 0:
            checked += 1
            continue  # ran on a GPU and matched the interpreter
        mm = re.search(r"stage (\w+): (?!check: ok)", out)
        fails.append(("after %s: " % mm.group(1) if mm else "") + first_error(err + out))
    # a module whose functions were all left unchecked (raw pointers) counts as not checked
    r["stages"] = (not fails) if (fails or checked) else None
    if fails:
        r["stage_err"] = fails[0]


def report(rows):
    n = len(rows)
    nchk = sum(r["check"] for r in rows)
    nfix = sum(r["fixed"] for r in rows)
    cpu = [r for r in rows if r["check"] and not r["gpu"]]
    nb = sum(bool(r["build"]) for r in cpu)
    ran = [r for r in cpu if r["run"] is not None]
    nr = sum(bool(r["run"]) for r in ran)
    print("\nprograms %d: check %d (%.1f%%), parse+fixed point %d (%.1f%%)" % (
        n, nchk, 100.0 * nchk / max(n, 1), nfix, 100.0 * nfix / max(n, 1)))
    print("CPU-only that parse %d: build %d (%.1f%%); run attempted %d: ok %d (%.1f%%); "
          "run skipped %d" % (len(cpu), nb, 100.0 * nb / max(len(cpu), 1), len(ran), nr,
                              100.0 * nr / max(len(ran), 1),
                              sum(1 for r in cpu if r["build"] and r["run"] is None)))
    gpu = [r for r in rows if r["check"] and r["gpu"]]
    kern = [r for r in gpu if r.get("kernel")]
    nbc = sum(bool(r.get("cuda_build")) for r in kern)
    nst = sum(bool(r.get("stages")) for r in kern)
    print("GPU that parse %d: launching no kernel %d; kernels %d: cuda build %d (%.1f%%); "
          "every GPU lowering stage interpreted and consistent %d (%.1f%% of the kernels)" % (
              len(gpu), len(gpu) - len(kern), len(kern), nbc, 100.0 * nbc / max(len(kern), 1),
              nst, 100.0 * nst / max(len(kern), 1)))
    for key in ("check_err", "fmt_err", "build_err", "run_err", "cuda_build_err", "stage_err",
                "run_skip"):
        c = collections.Counter(r[key] for r in rows if r.get(key))
        if c:
            print("\n%s:" % key)
            for msg, k in c.most_common(25):
                print("  %4d  %s" % (k, msg))
    if OUT:
        with open(OUT, "w") as f:
            json.dump(rows, f, indent=0)


if __name__ == "__main__":
    main()
