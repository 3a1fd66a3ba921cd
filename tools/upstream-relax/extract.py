#!/usr/bin/python3
"""Extract standalone Relax TVMScript programs from upstream TVM test files.

Each module-level or nested `@I.ir_module` / `@tvm.script.ir_module` /
`@tvm.script.ir.ir_module` class and each standalone `@R.function` (one not inside
a module or another function) becomes one program under OUT/, with a
`from tvm.script import ...` header.  Programs that depend on Python
metaprogramming (free variables closed over from the enclosing Python scope,
f-strings, comprehensions, starred targets, decorators with Python arguments)
are not standalone TVMScript: they are counted in skipped.json.  `relax.` (the
`from tvm import relax` module, which upstream's parser resolves for
`relax.const`, `relax.call_tir`) counts as TVMScript.

manifest.json (next to OUT/) lists each program with its kind (module or
function) and `static_main`: the module has a Relax `main` whose parameters are
all tensors of literal shape and dtype (what `tvmc build` can compile without
shape bindings).

usage: extract.py FILES_DIR OUT_DIR
"""
import ast
import json
import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from upstream_programs import dec_name, is_ir_module, metaprogramming, parsed_files  # noqa: E402

ALLOWED = {"T", "I", "R", "tvm", "relax", "range", "True", "False", "None", "float", "int",
           "bool", "min", "max", "abs", "len", "tir"}


def is_relax_function(node):
    return isinstance(node, ast.FunctionDef) and any(
        dec_name(d) in ("R.function", "relax.function") for d in node.decorator_list)


def static_tensor(ann):
    """ann is R.Tensor((literal ints...), "dtype") / dtype= keyword."""
    if not (isinstance(ann, ast.Call) and dec_name(ann.func) == "R.Tensor" and ann.args):
        return False
    shape = ann.args[0]
    if not isinstance(shape, (ast.Tuple, ast.List)):
        return False
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, int) for e in shape.elts):
        return False
    has_dtype = len(ann.args) > 1 or any(kw.arg == "dtype" for kw in ann.keywords)
    return has_dtype


def static_main(cls):
    for f in cls.body:
        if is_relax_function(f) and f.name == "main":
            args = f.args.args
            return all(a.annotation is not None and static_tensor(a.annotation) for a in args)
    return False


HEADER = ("# from upstream TVM's tests\n"
          "import tvm\n"
          "from tvm import relax\n"
          "from tvm.script import ir as I\n"
          "from tvm.script import relax as R\n"
          "from tvm.script import tir as T\n\n")


def main():
    files_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    manifest, skipped = [], []
    for fname, tree, lines in parsed_files(files_dir):
        stem = fname[:-3]
        seen = {}

        def visit(node):
            for child in ast.iter_child_nodes(node):
                if is_ir_module(child) or is_relax_function(child):
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
                    with open(os.path.join(out_dir, pid + ".py"), "w") as f:
                        f.write(HEADER + src + "\n")
                    module = isinstance(child, ast.ClassDef)
                    manifest.append({"id": pid, "kind": "module" if module else "function",
                                     "static_main": module and static_main(child)})
                    continue
                visit(child)

        visit(tree)
    with open(os.path.join(out_dir, "..", "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)
    with open(os.path.join(out_dir, "..", "skipped.json"), "w") as f:
        json.dump(skipped, f, indent=0)
    print("programs:", len(manifest), "(modules with a static main %d)"
          % sum(m["static_main"] for m in manifest),
          "skipped (metaprogramming):", len(skipped))
    for m in skipped:
        print("  skipped", m["id"], "-", m["why"])


if __name__ == "__main__":
    main()
