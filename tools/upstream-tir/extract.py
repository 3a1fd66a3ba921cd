#!/usr/bin/python3
"""Extract standalone TVMScript programs from upstream TVM test files.

Each module-level or nested `@T.prim_func` function and `@I.ir_module` /
`@tvm.script.ir_module` / `@tvm.script.ir.ir_module` class becomes one program
under OUT/, with a `from tvm.script import ...` header.  Programs that depend on
Python metaprogramming (free variables closed over from the enclosing Python
scope, f-strings, T.meta_var, calls of Python helpers, decorators with Python
arguments) are not standalone TVMScript: they are counted in skipped.txt.

usage: extract.py FILES_DIR OUT_DIR
"""
import ast
import builtins
import json
import os
import sys
import textwrap

ALLOWED = {"T", "I", "R", "tvm", "range", "True", "False", "None", "float", "int",
           "bool", "min", "max", "abs", "len", "tir"}
# Python builtins that TVMScript parses itself (anything else is metaprogramming)


def dec_name(d):
    if isinstance(d, ast.Call):
        d = d.func
    parts = []
    while isinstance(d, ast.Attribute):
        parts.append(d.attr)
        d = d.value
    if isinstance(d, ast.Name):
        parts.append(d.id)
    return ".".join(reversed(parts))


def is_prim_func(node):
    return isinstance(node, (ast.FunctionDef,)) and any(
        dec_name(d) in ("T.prim_func", "tvm.script.tir.prim_func", "prim_func")
        for d in node.decorator_list)


def is_ir_module(node):
    return isinstance(node, ast.ClassDef) and any(
        dec_name(d) in ("I.ir_module", "tvm.script.ir_module", "tvm.script.ir.ir_module",
                        "ir_module", "ir.ir_module") for d in node.decorator_list)


def bound_names(node):
    """Names a program defines itself: parameters, assignment/loop/with targets."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
    return names


def metaprogramming(node):
    """Why a program is not standalone TVMScript, or None."""
    bound = bound_names(node)
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr):
            return "f-string"
        if isinstance(n, ast.Attribute) and n.attr == "meta_var":
            return "T.meta_var"
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id not in bound and n.id not in ALLOWED:
                return "free variable " + n.id
        if isinstance(n, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return "comprehension"
        if isinstance(n, ast.Starred):
            return "starred"
    for d in node.decorator_list:
        if isinstance(d, ast.Call) and any(kw.arg == "check_well_formed" for kw in d.keywords):
            return "marked ill-formed (check_well_formed=False)"
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if not isinstance(kw.value, ast.Constant):
                    return "decorator argument"
    return None


def header(src):
    return ("# from upstream TVM's tests\n"
            "import tvm\n"
            "from tvm.script import ir as I\n"
            "from tvm.script import tir as T\n\n")


def main():
    files_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    manifest, skipped = [], []
    for fname in sorted(os.listdir(files_dir)):
        if not fname.endswith(".py"):
            continue
        text = open(os.path.join(files_dir, fname)).read()
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            print("cannot parse", fname, e, file=sys.stderr)
            continue
        lines = text.splitlines()
        stem = fname[:-3]
        seen = {}

        def visit(node, inside_module):
            for child in ast.iter_child_nodes(node):
                if is_ir_module(child) or (is_prim_func(child) and not inside_module):
                    start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                    src = textwrap.dedent("\n".join(lines[start - 1:child.end_lineno]))
                    name = child.name
                    seen[name] = seen.get(name, 0) + 1
                    if seen[name] > 1:
                        name = "%s_%d" % (name, seen[name])
                    pid = "%s__%s" % (stem, name)
                    why = metaprogramming(child)
                    if why:
                        skipped.append({"id": pid, "why": why})
                        continue
                    path = os.path.join(out_dir, pid + ".py")
                    with open(path, "w") as f:
                        f.write(header(src) + src + "\n")
                    gpu = any(k in src for k in ("thread_binding", "launch_thread", "env_thread",
                                                 "T.ptx", "T.cuda", "shared", "warp", "wmma",
                                                 "tvm_storage_sync", "T.tvm_mma", "fill_fragment", "matrix_sync", "scope=\"warp\""))
                    kind = "module" if isinstance(child, ast.ClassDef) else "prim_func"
                    manifest.append({"id": pid, "kind": kind, "gpu": gpu})
                    continue
                visit(child, inside_module or is_ir_module(child))

        visit(tree, False)
    with open(os.path.join(out_dir, "..", "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)
    with open(os.path.join(out_dir, "..", "skipped.json"), "w") as f:
        json.dump(skipped, f, indent=0)
    print("programs:", len(manifest), "(cpu-only %d)" % sum(not m["gpu"] for m in manifest),
          "skipped (metaprogramming):", len(skipped))


if __name__ == "__main__":
    main()
