"""What the upstream-program extractors share (tools/upstream-tir/extract.py and
tools/upstream-relax/extract.py): decorator names, IRModule classes, and whether a program is
standalone TVMScript or depends on Python metaprogramming."""
import ast
import os
import sys


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


def metaprogramming(node, allowed):
    """Why a program is not standalone TVMScript (a name outside `allowed` it does not
    bind itself, ...), or None."""
    bound = bound_names(node)
    for n in ast.walk(node):
        if isinstance(n, ast.JoinedStr):
            return "f-string"
        if isinstance(n, ast.Attribute) and n.attr == "meta_var":
            return "T.meta_var"
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id not in bound and n.id not in allowed:
                return "free variable " + n.id
        if isinstance(n, (ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return "comprehension"
        if isinstance(n, ast.Starred) and isinstance(n.ctx, ast.Store):
            return "starred target"  # (a starred argument, T.grid(*A.shape), is TVMScript)
    for d in node.decorator_list:
        if isinstance(d, ast.Call) and any(kw.arg == "check_well_formed" for kw in d.keywords):
            return "marked ill-formed (check_well_formed=False)"
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if not isinstance(kw.value, ast.Constant):
                    return "decorator argument"
    return None


def parsed_files(files_dir):
    """(file name, syntax tree, lines) of each .py file of files_dir in name order; a file Python
    cannot parse is reported on stderr and left out."""
    for fname in sorted(os.listdir(files_dir)):
        if not fname.endswith(".py"):
            continue
        text = open(os.path.join(files_dir, fname)).read()
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            print("cannot parse", fname, e, file=sys.stderr)
            continue
        yield fname, tree, text.splitlines()
