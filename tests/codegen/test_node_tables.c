/*
 * test_node_tables.c: one row per node kind. Every kind of libtir's nodes.def and librelax's
 * nodes.def must have its row in each per-kind table of the suite that needs one, so that a new
 * node fails here, naming the kind and the table, instead of raising NotImplementedError the
 * first time a program uses it. The kinds a table deliberately does not handle are listed
 * below with the reason; a listed kind that the table does handle fails too (the list stays
 * true).
 *
 * TIR kinds: reflection (libtir's registry: a registered type with its key), printer
 * (libscript's TVMScript converters), parser (a TVMScript text, kTirForms, that parses to IR
 * holding a node of the kind), interpreter (libtir's reference interpreter: PrimExprs and
 * Stmts), codegen (libcodegen's LLVM rules: PrimExprs and Stmts), well-formedness (kinds with a
 * field that binds a variable, by reflection, need a checker rule of their own).
 * Relax kinds: reflection, printer, parser (not written yet: all exempt), evaluator
 * (tvm_relax_eval) and VM code generator (expressions). (librelax's well-formedness checker
 * dispatches by an exhaustive switch over the kinds, which the compiler checks: no table.)
 */
#include <tvm-private/codegen.h>
#include <tvm-private/relax.h>
#include <tvm-private/tir.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/visit.h>

#include "../../libscript/src/script_internal.h"
#include "test_util.h"

/* ---- The kinds and their families, from the lists themselves ------------------------------ */
#define TVM_TIR_KIND_Object TVM_TIR_KIND_NONE
static const tvm_tir_kind kTirParent[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  [TVM_TIR_KIND_##Name] = TVM_TIR_KIND_##Parent,
#include <tvm/tir/nodes.def>
};
#undef TVM_TIR_KIND_Object

static bool tir_under(tvm_tir_kind k, tvm_tir_kind base) {
  for (; k != TVM_TIR_KIND_NONE; k = kTirParent[k]) {
    if (k == base) return true;
  }
  return false;
}

/* The abstract bases: never instantiated, so no table but reflection has a row for them. */
static bool tir_abstract(tvm_tir_kind k) {
  return k == TVM_TIR_KIND_BaseExpr || k == TVM_TIR_KIND_PrimExpr || k == TVM_TIR_KIND_RelaxExpr ||
         k == TVM_TIR_KIND_BaseFunc || k == TVM_TIR_KIND_Type || k == TVM_TIR_KIND_Stmt;
}

/* The Relax kinds' parents: a Relax kind, or one of libtir's bases (RelaxExpr, BaseFunc). */
enum { RELAX_PARENT_OBJECT = -1, RELAX_PARENT_EXPR = -2, RELAX_PARENT_FUNC = -3 };
#define TVM_RELAX_KIND_Object RELAX_PARENT_OBJECT
#define TVM_RELAX_KIND_RelaxExpr RELAX_PARENT_EXPR
#define TVM_RELAX_KIND_BaseFunc RELAX_PARENT_FUNC
static const int kRelaxParent[TVM_RELAX_KIND_COUNT] = {
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  [TVM_RELAX_KIND_##Name] = TVM_RELAX_KIND_##Parent,
#include <tvm/relax/nodes.def>
};
#undef TVM_RELAX_KIND_Object
#undef TVM_RELAX_KIND_RelaxExpr
#undef TVM_RELAX_KIND_BaseFunc

/* The root of a Relax kind's ancestry (RELAX_PARENT_*). */
static int relax_root(int k) {
  while (k >= 0) k = kRelaxParent[k];
  return k;
}

/* ---- Exemptions -------------------------------------------------------------------------- */
typedef struct {
  int kind;
  const char* table;
  const char* why;
} exemption;

static const exemption kTirExempt[] = {
    {TVM_TIR_KIND_BufferRealize, "codegen",
     "lowered away before code generation (tvm_tir_lower: storage flattening)"},
    {TVM_TIR_KIND_SBlock, "codegen", "lowered away before code generation (tvm_tir_lower)"},
    {TVM_TIR_KIND_SBlockRealize, "codegen", "lowered away before code generation (tvm_tir_lower)"},
    {TVM_TIR_KIND_IRModule, "well-formedness",
     "the checker runs on each PrimFunc of a module; the module's GlobalVars are its names"},
};

static const exemption kRelaxExempt[] = {
    {TVM_RELAX_KIND_StructInfo, "printer", "abstract base, never instantiated"},
    {TVM_RELAX_KIND_Binding, "printer", "abstract base, never instantiated"},
    {TVM_RELAX_KIND_Function, "vm codegen",
     "functions are compiled one by one (relax_vm_codegen.c); LambdaLift turns local ones into "
     "module functions, used as values through the function pool"},
};
/* The whole Relax parser row (parse_eval.h tells how a dialect plugs in). */
static const char kRelaxParserWhy[] = "the Relax dialect of the parser is not written yet";

static const char* exempt(const exemption* list, size_t n, int kind, const char* table) {
  for (size_t i = 0; i < n; ++i) {
    if (list[i].kind == kind && strcmp(list[i].table, table) == 0) return list[i].why;
  }
  return NULL;
}

/* What is wrong with one row (NULL: nothing), written into buf: `has` tells whether the table
 * handles the kind, why_not is its exemption (NULL: none). */
static const char* row_problem(const char* family, const char* kind_name, const char* table,
                               bool has, const char* why_not, char* buf, size_t size) {
  if (!has && !why_not) {
    snprintf(buf, size, "%s kind %s has no row in the %s table", family, kind_name, table);
  } else if (has && why_not) {
    snprintf(buf, size, "%s kind %s is listed as left out of the %s table (%s), but it has a row",
             family, kind_name, table, why_not);
  } else {
    return NULL;
  }
  return buf;
}

static void row(const char* family, const char* kind_name, const char* table, bool has,
                const char* why_not) {
  char buf[512];
  const char* problem = row_problem(family, kind_name, table, has, why_not, buf, sizeof(buf));
  if (problem) {
    fprintf(stderr, "  %s\n", problem);
    g_test_failed_checks++;
  }
}

/* ---- TIR: the parser's form of each kind ------------------------------------------------- */
#define DECL_XY "x = T.int32()\ny = T.int32()\n"
#define DECL_A "A = T.Buffer((4,), \"int32\")\n"
static const struct {
  tvm_tir_kind kind;
  const char* text; /* TVMScript whose IR holds a node of the kind */
} kTirForms[] = {
    {TVM_TIR_KIND_PrimType, "@T.prim_func\ndef f() -> T.int32:\n    return 0\n"},
    {TVM_TIR_KIND_PointerType, DECL_A "A\n"}, /* the data Var's type */
    {TVM_TIR_KIND_TupleType, "T.Tuple(T.int32, T.float32)\n"},
    {TVM_TIR_KIND_Var, "x = T.int32()\nx\n"},
    {TVM_TIR_KIND_SizeVar, "n = T.int32(is_size_var=True)\nn\n"},
    {TVM_TIR_KIND_IntImm, "T.int32(5)\n"},
    {TVM_TIR_KIND_FloatImm, "T.float32(1.5)\n"},
    {TVM_TIR_KIND_StringImm, "T.call_extern(\"int32\", \"f\")\n"},
    {TVM_TIR_KIND_Cast, DECL_XY "T.Cast(\"int64\", x)\n"},
    {TVM_TIR_KIND_Not, DECL_XY "T.Not(x < y)\n"},
    {TVM_TIR_KIND_Select, DECL_XY "T.Select(x < y, x, y)\n"},
    {TVM_TIR_KIND_BufferLoad, DECL_A "A[0]\n"},
    {TVM_TIR_KIND_Ramp, "T.Ramp(0, 1, 4)\n"},
    {TVM_TIR_KIND_Broadcast, DECL_XY "T.Broadcast(x, 4)\n"},
    {TVM_TIR_KIND_Let, DECL_XY "T.Let(y + 1, where={y: x})\n"},
    {TVM_TIR_KIND_Call, "T.exp(T.float32(1))\n"},
    {TVM_TIR_KIND_Shuffle, "T.Shuffle([T.Ramp(0, 1, 4)], [3, 2, 1, 0])\n"},
    {TVM_TIR_KIND_GlobalVar, "I.GlobalVar(\"f\")\n"},
    {TVM_TIR_KIND_Op, "I.Op(\"tir.exp\")\n"},
    {TVM_TIR_KIND_LetStmt, DECL_XY "z: T.let = x + 1\nT.evaluate(z)\n"},
    {TVM_TIR_KIND_AttrStmt, "with T.attr(0, \"pragma_x\", 1):\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_AssertStmt, DECL_XY "assert x > 0, \"positive\"\nT.evaluate(0)\n"},
    {TVM_TIR_KIND_BufferStore, DECL_A "A[0] = 1\n"},
    {TVM_TIR_KIND_BufferRealize, DECL_A "with T.realize(A[0:4], \"\"):\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_Allocate, "buf = T.allocate([16], \"float32\", \"global\")\nT.evaluate(0)\n"},
    {TVM_TIR_KIND_DeclBuffer, "B = T.decl_buffer((4,), \"int32\")\nT.evaluate(0)\n"},
    {TVM_TIR_KIND_SeqStmt, "T.evaluate(0)\nT.evaluate(1)\n"},
    {TVM_TIR_KIND_IfThenElse, DECL_XY "if x > 0:\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_Evaluate, "T.evaluate(0)\n"},
    {TVM_TIR_KIND_For, "for i in range(4):\n    T.evaluate(i)\n"},
    {TVM_TIR_KIND_While, DECL_XY "while x > 0:\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_SBlock, "with T.sblock(\"b\"):\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_SBlockRealize, "with T.sblock(\"b\"):\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_Range, "I.Range(0, 4)\n"},
    {TVM_TIR_KIND_IterVar, DECL_XY "T.iter_var(x, I.Range(0, 4), \"DataPar\", \"\")\n"},
    {TVM_TIR_KIND_Buffer, DECL_A "A\n"},
    {TVM_TIR_KIND_BufferRegion, DECL_A "A[0:2]\n"},
    {TVM_TIR_KIND_MatchBufferRegion,
     "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    with T.sblock(\"b\"):\n"
     "        B = T.match_buffer(A[0:2], (2,), \"int32\")\n        T.evaluate(0)\n"},
    {TVM_TIR_KIND_PrimFunc, "@T.prim_func\ndef f():\n    T.evaluate(0)\n"},
    {TVM_TIR_KIND_IRModule,
     "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        T.evaluate(0)\n"},
    {TVM_TIR_KIND_CommReducer, "T.comm_reducer(lambda a, b: a + b, [T.int32(0)])\n"},
    {TVM_TIR_KIND_Target, "T.target(\"llvm\")\n"},
    {TVM_TIR_KIND_IndexMap, "T.index_map(lambda i: (i,))\n"},
    {TVM_TIR_KIND_VDevice, "I.vdevice(\"llvm\")\n"},
    {TVM_TIR_KIND_DummyGlobalInfo, "I.dummy_global_info()\n"},
};

/* The binary operators: T.<Name>(x, y) of two int32s (logical ones of two comparisons). */
static bool binop_form(tvm_tir_kind k, char* buf, size_t size) {
  const char* name = NULL;
  bool logic = false;
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields)
#define TVM_TIR_BINOP(Name, type_key, klass, symbol)       \
  if (k == TVM_TIR_KIND_##Name) {                          \
    name = #Name;                                          \
    logic = strcmp(#klass, "LOGIC") == 0;                  \
  }
#include <tvm/tir/nodes.def>
  if (!name) return false;
  snprintf(buf, size, DECL_XY "T.%s(%s)\n", name, logic ? "x < y, y < x" : "x, y");
  return true;
}

typedef struct {
  tvm_tir_kind kind;
  bool found;
} find_ctx;
static int find_kind(tvm_tir_visitor* v, const void* node) {
  find_ctx* f = v->ctx;
  if (tvm_tir_kind_of(node) == f->kind) f->found = true;
  return f->found ? -1 : TVM_TIR_VISIT_CONTINUE; /* (stop at the first) */
}

/* Whether text parses to IR holding a node of kind k; the parse's error is printed if not. */
static bool parses_to(tvm_tir_kind k, const char* text) {
  void* ir = tvm_script_parse(text, strlen(text), NULL);
  if (!ir) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "  the form of %s does not parse: %s: %s\n", tvm_tir_kind_name(k),
            tvm_ffi_error_kind(e), tvm_ffi_error_message(e));
    tvm_ffi_release(e);
    return false;
  }
  find_ctx f = {k, false};
  tvm_tir_visitor v;
  memset(&v, 0, sizeof(v));
  v.pre_default = find_kind;
  v.ctx = &f;
  tvm_tir_visit(&v, ir);
  tvm_tir_visitor_free(&v);
  tvm_ffi_error_clear(); /* (the stop at the first node found) */
  tvm_ffi_release(ir);
  return f.found;
}

static bool tir_parser_row(tvm_tir_kind k) {
  char buf[256];
  if (binop_form(k, buf, sizeof(buf))) return parses_to(k, buf);
  for (size_t i = 0; i < sizeof(kTirForms) / sizeof(kTirForms[0]); ++i) {
    if (kTirForms[i].kind == k) return parses_to(k, kTirForms[i].text);
  }
  return false;
}

/* Whether a kind's reflected fields include one that binds a variable (SEqHashDef). */
static bool binds_a_variable(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  for (int32_t i = 0; info && i < info->num_fields; ++i) {
    if (info->fields[i].flags & kTVMFFIFieldFlagBitMaskSEqHashDef) return true;
  }
  return false;
}

static bool registered(int32_t type_index, const char* type_key) {
  const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : NULL;
  return info && strcmp(tvm_ffi_type_key(type_index), type_key) == 0;
}

TEST(tir_kinds) {
  tvm_tir_init();
  for (int i = 0; i < TVM_TIR_KIND_COUNT; ++i) {
    tvm_tir_kind k = (tvm_tir_kind)i;
    const char* name = tvm_tir_kind_name(k);
    int32_t index = tvm_tir_type_index(k);
    row("TIR", name, "reflection", registered(index, tvm_tir_kind_type_key(k)), NULL);
    if (tir_abstract(k)) continue;
#define ROW(table, has) \
  row("TIR", name, table, (has), exempt(kTirExempt, sizeof(kTirExempt) / sizeof(kTirExempt[0]), k, table))
    ROW("printer", tvm_script__printer_rule("", index));
    ROW("parser", tir_parser_row(k));
    bool expr = tir_under(k, TVM_TIR_KIND_PrimExpr), stmt = tir_under(k, TVM_TIR_KIND_Stmt);
    if (expr || stmt) {
      ROW("interpreter", expr ? tvm_tir__interp_expr_rule(k) : tvm_tir__interp_stmt_rule(k));
      ROW("codegen", expr ? tvm_codegen__llvm_expr_rule(k) : tvm_codegen__llvm_stmt_rule(k));
    }
    if (binds_a_variable(index)) ROW("well-formedness", tvm_tir__wf_rule(k));
#undef ROW
  }
}

TEST(relax_kinds) {
  tvm_relax_init();
  static const char* const kKeys[TVM_RELAX_KIND_COUNT] = {
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) type_key,
#include <tvm/relax/nodes.def>
  };
  for (int i = 0; i < TVM_RELAX_KIND_COUNT; ++i) {
    tvm_relax_kind k = (tvm_relax_kind)i;
    const char* name = tvm_relax_kind_name(k);
    int32_t index = tvm_relax_type_index(k);
    row("Relax", name, "reflection", registered(index, kKeys[k]), NULL);
#define ROW(table, has)                                                                          \
  row("Relax", name, table, (has),                                                               \
      exempt(kRelaxExempt, sizeof(kRelaxExempt) / sizeof(kRelaxExempt[0]), k, table))
    ROW("printer", tvm_script__printer_rule("", index));
    row("Relax", name, "parser", false, kRelaxParserWhy);
    int root = relax_root(k);
    if (root == RELAX_PARENT_EXPR || root == RELAX_PARENT_FUNC) {
      ROW("evaluator", tvm_relax__eval_rule(k));
      ROW("vm codegen", tvm_codegen__vm_expr_rule(k));
    }
#undef ROW
  }
}

/* The check itself: a kind without its row is named with the table (as a new node would be),
 * and so is a kind listed as left out of a table that has it. */
TEST(a_missing_row_is_named) {
  char buf[512];
  const char* p = row_problem("TIR", "NewNode", "codegen", false, NULL, buf, sizeof(buf));
  CHECK_STR_EQ(p ? p : "", "TIR kind NewNode has no row in the codegen table");
  p = row_problem("TIR", "For", "codegen", true, "lowered", buf, sizeof(buf));
  CHECK_STR_EQ(p ? p : "", "TIR kind For is listed as left out of the codegen table (lowered), but it has a row");
  CHECK(row_problem("TIR", "For", "codegen", true, NULL, buf, sizeof(buf)) == NULL);
  CHECK(row_problem("TIR", "SBlock", "codegen", false, "lowered", buf, sizeof(buf)) == NULL);
  /* The parser row looks for the kind in what its form parses to. */
  CHECK(parses_to(TVM_TIR_KIND_For, "for i in range(4):\n    T.evaluate(i)\n"));
  CHECK(!parses_to(TVM_TIR_KIND_While, "for i in range(4):\n    T.evaluate(i)\n"));
}

int main(void) {
  RUN(tir_kinds);
  RUN(relax_kinds);
  RUN(a_missing_row_is_named);
  return test_summary();
}
