#!/usr/bin/python3
"""Extract standalone Relax TVMScript programs from upstream TVM test files.

Each module-level or nested `@I.ir_module` / `@tvm.script.ir_module` /
`@tvm.script.ir.ir_module` class and each standalone `@R.function` (one not inside
a module or another function) becomes one program under OUT/, with a
`from tvm.script import ...` header.  Programs that depend on Python
metaprogramming (free variables closed over from the enclosing Python scope,
f-strings, comprehensions, starred arguments, decorators with Python arguments)
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

ALLOWED = {"T", "I", "R", "tvm", "relax", "range", "True", "False", "None", "float", "int",
           "bool", "min", "max", "abs", "len", "tir"}


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


def is_relax_function(node):
    return isinstance(node, ast.FunctionDef) and any(
        dec_name(d) in ("R.function", "relax.function") for d in node.decorator_list)


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
                    why = metaprogramming(child)
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
