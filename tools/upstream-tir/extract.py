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
import json
import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from upstream_programs import dec_name, is_ir_module, metaprogramming, parsed_files  # noqa: E402

ALLOWED = {"T", "I", "R", "tvm", "range", "True", "False", "None", "float", "int",
           "bool", "min", "max", "abs", "len", "tir"}
# Python builtins that TVMScript parses itself (anything else is metaprogramming)


def is_prim_func(node):
    return isinstance(node, (ast.FunctionDef,)) and any(
        dec_name(d) in ("T.prim_func", "tvm.script.tir.prim_func", "prim_func")
        for d in node.decorator_list)


def header(src):
    return ("# from upstream TVM's tests\n"
            "import tvm\n"
            "from tvm.script import ir as I\n"
            "from tvm.script import tir as T\n\n")


def main():
    files_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    manifest, skipped = [], []
    for fname, tree, lines in parsed_files(files_dir):
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
                    why = metaprogramming(child, ALLOWED)
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
