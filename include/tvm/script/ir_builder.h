/*
 * tvm/script/ir_builder.h: the IR builder, a stack of frames that builds IR statement by
 * statement, the way TVMScript reads. The parser drives it; C programs call it directly to build
 * IR the same way:
 *
 *   tvm_script_builder* b = tvm_script_builder_new();
 *   tvm_script_tir_prim_func_enter(b, false);
 *   tvm_script_tir_func_name(b, "add_one");
 *   tvm_script_buffer_args ba;  tvm_script_buffer_args_init(&ba);
 *   ba.name = "A"; ba.shape = <Array [128]>; ba.dtype = float32;
 *   tvm_tir_buffer_obj* A = tvm_script_tir_buffer(&ba);        // T.Buffer((128,), "float32")
 *   tvm_ffi_release(tvm_script_tir_arg(b, "A", A));            // def f(A: T.Buffer(...))
 *   tvm_tir_var_obj* i = tvm_script_tir_for_enter(b, "i", TVM_TIR_FOR_SERIAL, NULL, n128, NULL, NULL);
 *   tvm_script_tir_buffer_store(b, A, value, <Array [i]>);     // A[i] = value
 *   tvm_script_builder_exit(b);                                // end of the for body
 *   tvm_script_builder_exit(b);                                // end of the function
 *   void* func = tvm_script_builder_result(b);                 // the PrimFunc (new reference)
 *   tvm_script_builder_free(b);
 *
 * Frames. Each frame collects the statements emitted while it is innermost; exiting it builds
 * its node from them and hands the node to the frame below (a statement is appended to the
 * parent's body; a PrimFunc is added to an enclosing module frame or becomes the result). With no
 * frame open, statements go to a top-level list whose SeqStmt (or single statement) is the
 * result, so a fragment can be built as well.
 *
 * Rest-of-body frames. LetStmt, AssertStmt, Allocate, DeclBuffer, AttrStmt and launch_thread
 * take a `rest_of_body` flag. When true (the statement forms `x: T.let = v`, `assert c, "m"`,
 * `A = T.decl_buffer(...)`) the frame's body is everything emitted after it up to the end of the
 * enclosing explicit frame: tvm_script_builder_exit first closes every rest-of-body frame opened
 * above the explicit frame it exits. When false (`with T.attr(...):`), the frame is explicit and
 * closes with its own tvm_script_builder_exit. The typing rules of a scoped statement are
 * checked when it is entered (its node is built once around a placeholder body), so their
 * TypeErrors point at the statement, not at the end of its body.
 *
 * Ownership follows DESIGN.md: object arguments are borrowed; returned objects are new
 * references. Errors: functions return NULL / -1 with the error raised (TypeError from the libtir
 * constructors, ValueError for a builder call in the wrong frame, e.g. "T.reads is only valid
 * inside a T.sblock"). After an error the builder is still valid and may be freed; its state is
 * not otherwise specified.
 */
#ifndef TVM_SCRIPT_IR_BUILDER_H_
#define TVM_SCRIPT_IR_BUILDER_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/tir.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef struct tvm_script_builder tvm_script_builder;

typedef enum {
  TVM_SCRIPT_FRAME_NONE = 0,
  TVM_SCRIPT_FRAME_MODULE,        /* @I.ir_module class */
  TVM_SCRIPT_FRAME_PRIM_FUNC,     /* @T.prim_func def */
  TVM_SCRIPT_FRAME_BLOCK,         /* with T.sblock(name): */
  TVM_SCRIPT_FRAME_BLOCK_INIT,    /* with T.init(): */
  TVM_SCRIPT_FRAME_FOR,           /* for v in T.serial/...: */
  TVM_SCRIPT_FRAME_IF,            /* if c: (holds a THEN and optionally an ELSE frame) */
  TVM_SCRIPT_FRAME_THEN,
  TVM_SCRIPT_FRAME_ELSE,
  TVM_SCRIPT_FRAME_WHILE,
  TVM_SCRIPT_FRAME_ASSERT,
  TVM_SCRIPT_FRAME_LET,
  TVM_SCRIPT_FRAME_ALLOCATE,
  TVM_SCRIPT_FRAME_DECL_BUFFER,
  TVM_SCRIPT_FRAME_ATTR,
  TVM_SCRIPT_FRAME_LAUNCH_THREAD,
  TVM_SCRIPT_FRAME_REALIZE,       /* with T.realize(A[...], "global"): */
  /* Relax (tvm/script/ir_builder_relax.h) */
  TVM_SCRIPT_FRAME_RELAX_FUNC,     /* @R.function def */
  TVM_SCRIPT_FRAME_RELAX_DATAFLOW, /* with R.dataflow(): */
  TVM_SCRIPT_FRAME_RELAX_IF,       /* if c: (holds a THEN and an ELSE frame) */
  TVM_SCRIPT_FRAME_RELAX_THEN,
  TVM_SCRIPT_FRAME_RELAX_ELSE,
} tvm_script_frame_kind;

/* ---- The builder ----------------------------------------------------------------------------- */
tvm_script_builder* tvm_script_builder_new(void); /* NULL + error on OOM */
/* Frees the builder and everything it holds (open frames included). NULL-safe. */
void tvm_script_builder_free(tvm_script_builder* b);
/* Number of open frames, and the kind of the frame `level` below the innermost (0 = innermost;
 * NONE when there is no such frame). */
int tvm_script_builder_depth(const tvm_script_builder* b);
tvm_script_frame_kind tvm_script_builder_frame_kind(const tvm_script_builder* b, int level);
/* Close the innermost explicit frame (after the rest-of-body frames above it). 0 or -1
 * (ValueError when no explicit frame is open). */
int tvm_script_builder_exit(tvm_script_builder* b);
/* The finished object, a new reference: the IRModule or PrimFunc of the last top-level frame
 * exited, else the top-level statements (one Stmt or a SeqStmt). Rest-of-body frames opened at
 * the top level (a fragment `x: T.let = v; ...`) are closed first. ValueError while other
 * frames are open or when nothing was built. */
void* tvm_script_builder_result(tvm_script_builder* b);

/* ---- ir: modules ----------------------------------------------------------------------------- */
int tvm_script_ir_module_enter(tvm_script_builder* b);
/* The GlobalVar of the module's function `name`, created on first use (so `cls.f` can refer to
 * a function defined later). ValueError outside a module frame. */
tvm_tir_global_var_obj* tvm_script_ir_module_global_var(tvm_script_builder* b, const char* name);
/* I.module_attrs({...}): attrs an ffi.Map<String, Any>. */
int tvm_script_ir_module_attrs(tvm_script_builder* b, const void* attrs);
/* I.module_global_infos({...}): an ffi.Map<String, Array>, stored as module attribute
 * "global_infos". */
int tvm_script_ir_module_global_infos(tvm_script_builder* b, const void* infos);

/* ---- tir: functions -------------------------------------------------------------------------- */
/* @T.prim_func(private=...): a private function gets no global_symbol attribute; otherwise its
 * name becomes its global_symbol unless func_attr sets one. */
int tvm_script_tir_prim_func_enter(tvm_script_builder* b, bool is_private);
int tvm_script_tir_func_name(tvm_script_builder* b, const char* name);
/* A parameter. param: a Var (appended to params; returned) or a Buffer (`A: T.Buffer(...)`: a
 * handle Var "<name>_handle" is appended to params and mapped to the buffer, as upstream and
 * tvm_tir_func_take do; the Buffer is returned, renamed `name` (with its data Var, when that
 * was made with the old name) if T.Buffer did not know the name). */
void* tvm_script_tir_arg(tvm_script_builder* b, const char* name, const void* param);
/* T.func_attr({...}): merged into the function's attrs (later keys win). */
int tvm_script_tir_func_attrs(tvm_script_builder* b, const void* attrs);
/* -> T.int32 etc.: the function's declared return type (a tir Type). */
int tvm_script_tir_func_ret(tvm_script_builder* b, const void* type);
/* The implicit root block. The function's body becomes SBlockRealize([], true, SBlock("root",
 * body, alloc_buffers)) when it has root allocations (T.sblock_alloc_buffer / T.alloc_buffer
 * directly in the function body) or when this was called: the parser calls it when the body
 * starts with the comment `# with T.sblock("root"):`, which the printer writes for exactly such
 * a block (a root without allocations is otherwise invisible in the text). A body with blocks
 * and no root stays as it is, so print -> parse rebuilds both forms. */
int tvm_script_tir_func_root_block(tvm_script_builder* b);

/* ---- tir: buffers ---------------------------------------------------------------------------- */
/* Arguments of T.Buffer / T.match_buffer / T.alloc_buffer / T.decl_buffer; init, then set what
 * was written. */
typedef struct {
  const char* name;          /* the variable it is assigned to; NULL = "buffer" */
  void* shape;               /* ffi.Array of PrimExpr (or ints); required */
  DLDataType dtype;          /* init: float32 */
  const void* data;          /* a handle Var, NULL = fresh */
  void* strides;             /* ffi.Array or NULL */
  const void* elem_offset;   /* PrimExpr or NULL */
  const char* scope;         /* NULL = "global" */
  int32_t align;             /* <= 0 default */
  int32_t offset_factor;     /* 0 default */
  const char* buffer_type;   /* NULL / "default" / "auto" */
  void* axis_separators;     /* ffi.Array or NULL */
  void* name_str;            /* NULL, or an ffi.String of name's text: shared by the fresh data
                                Var and the Buffer instead of copies of the text */
  tvm_script_builder* builder; /* NULL, or the builder whose types the fresh data Var may share */
} tvm_script_buffer_args;
void tvm_script_buffer_args_init(tvm_script_buffer_args* a);

/* A Buffer object, no statement (T.Buffer(...) in a signature or `A = T.Buffer(...)` aliasing
 * an existing data var). */
tvm_tir_buffer_obj* tvm_script_tir_buffer(const tvm_script_buffer_args* a);
/* A = T.match_buffer(param, ...): param a handle Var parameter of the innermost PrimFunc frame
 * (-> buffer_map) or a BufferRegion inside a block frame (-> the block's match_buffers). */
tvm_tir_buffer_obj* tvm_script_tir_match_buffer(tvm_script_builder* b, const void* param,
                                                const tvm_script_buffer_args* a);
/* T.sblock_alloc_buffer / T.alloc_buffer: allocated by the innermost block frame (anywhere up
 * the stack); with none, directly in a PrimFunc frame, it goes to the implicit root block (see
 * tvm_script_tir_func_root_block); with none, inside another statement frame of a PrimFunc (a
 * for body, T.launch_thread, ...), it opens a DeclBuffer frame for the rest of that body whose
 * buffer has a fresh data Var (upstream's statement-level allocation; `a->data` must be NULL). */
tvm_tir_buffer_obj* tvm_script_tir_alloc_buffer(tvm_script_builder* b,
                                                const tvm_script_buffer_args* a);
/* A = T.decl_buffer(...) (rest_of_body) / with T.decl_buffer(...) as A: a DeclBuffer frame. */
tvm_tir_buffer_obj* tvm_script_tir_decl_buffer_enter(tvm_script_builder* b,
                                                     const tvm_script_buffer_args* a,
                                                     bool rest_of_body);
/* T.allocate(extents, dtype, scope[, condition]): an Allocate frame; returns its buffer Var (a
 * handle Var named `name`, PointerType(PrimType(dtype), scope)). */
tvm_tir_var_obj* tvm_script_tir_allocate_enter(tvm_script_builder* b, const char* name,
                                               const void* extents, DLDataType dtype,
                                               const char* scope, const void* condition,
                                               const void* annotations, bool rest_of_body);

/* T.realize(A[0:4, j], scope[, condition]): a BufferRealize of the region (a BufferRegion;
 * condition NULL = true). scope must be the buffer's storage scope ("global" = ""). */
int tvm_script_tir_realize_enter(tvm_script_builder* b, const void* region, const char* scope,
                                 const void* condition, bool rest_of_body);

/* ---- tir: blocks ----------------------------------------------------------------------------- */
/* with T.sblock(name[, no_realize]): exiting gives SBlockRealize(iter_values, predicate,
 * SBlock(...)), or with no_realize the bare SBlock (its axes then have no bindings). A block
 * without T.reads / T.writes gets them inferred from its body as upstream's parser does
 * (covering regions of its loads and stores; see ir_builder_regions.c), except a root block
 * written out (`with T.sblock("root"):` directly in the function body, no axes), which keeps
 * none. */
int tvm_script_tir_block_enter(tvm_script_builder* b, const char* name, bool no_realize);
int tvm_script_tir_block_init_enter(tvm_script_builder* b); /* with T.init(): */
int tvm_script_tir_where(tvm_script_builder* b, const void* predicate);
int tvm_script_tir_reads(tvm_script_builder* b, const void* regions);  /* Array of BufferRegion */
int tvm_script_tir_writes(tvm_script_builder* b, const void* regions); /* Array of BufferRegion */
int tvm_script_tir_block_attrs(tvm_script_builder* b, const void* attrs); /* T.sblock_attr */
/* T.axis.spatial/reduce/scan/opaque(dom, binding, dtype): dom a Range or an extent PrimExpr;
 * adds IterVar(name) to the innermost block and `binding` to its iter values; returns the Var
 * (of the binding's dtype). */
tvm_tir_var_obj* tvm_script_tir_axis(tvm_script_builder* b, const char* name,
                                     tvm_tir_iter_var_type kind, const void* dom,
                                     const void* binding);
/* T.axis.remap("SSR", [i, j, k]): one axis per character (S spatial, R reduce), domain the
 * extent of the For frame binding each loop var; returns an ffi.Array of the new Vars named
 * names[i]. */
void* tvm_script_tir_axis_remap(tvm_script_builder* b, const char* kinds, const void* bindings,
                                const char* const* names);

/* ---- tir: loops and control flow ------------------------------------------------------------- */
/* for name in T.serial/parallel/vectorized/unroll/thread_binding(min, extent): a For frame;
 * min NULL = 0 of extent's dtype; the loop var (returned) has extent's dtype. thread: the
 * thread tag for THREAD_BINDING ("threadIdx.x"), else NULL. annotations: Map or NULL. */
tvm_tir_var_obj* tvm_script_tir_for_enter(tvm_script_builder* b, const char* name,
                                          tvm_tir_for_kind kind, const void* min,
                                          const void* extent, const char* thread,
                                          const void* annotations);
int tvm_script_tir_while_enter(tvm_script_builder* b, const void* condition);
/* if/else: if_enter, then_enter, body, exit, [else_enter, body, exit,] exit. */
int tvm_script_tir_if_enter(tvm_script_builder* b, const void* condition);
int tvm_script_tir_then_enter(tvm_script_builder* b);
int tvm_script_tir_else_enter(tvm_script_builder* b);
/* assert cond, message */
int tvm_script_tir_assert_enter(tvm_script_builder* b, const void* condition, const void* message,
                                bool rest_of_body);
/* assert cond, (kind, [message parts]): kind NULL as assert_enter; else message is the parts
 * joined (a string). */
int tvm_script_tir_assert_kind_enter(tvm_script_builder* b, const void* condition, const char* kind,
                                     const void* message, bool rest_of_body);
/* x: T.let = value / x = value / with T.LetStmt(value) as x: the Var (named name, of value's
 * dtype, or type_annotation when given) is returned. */
tvm_tir_var_obj* tvm_script_tir_let_enter(tvm_script_builder* b, const char* name,
                                          const void* value, const void* type_annotation,
                                          bool rest_of_body);
/* with T.LetStmt(value, var=x): a LetStmt binding the existing Var x (returned). */
tvm_tir_var_obj* tvm_script_tir_let_bind_enter(tvm_script_builder* b, const void* var,
                                               const void* value, bool rest_of_body);
/* T.attr(node, key, value) */
int tvm_script_tir_attr_enter(tvm_script_builder* b, const TVMFFIAny* node, const char* key,
                              const void* value, bool rest_of_body);
/* T.launch_thread(thread, extent): thread a tag string ("threadIdx.x": a new Var named name),
 * a Var from tvm_script_tir_env_thread_var or an earlier launch, or an IterVar. An AttrStmt
 * "thread_extent" ("virtual_thread" for vthread tags) over IterVar(Range(0, extent), var,
 * ThreadIndex, tag), as upstream; returns the thread Var. */
tvm_tir_var_obj* tvm_script_tir_launch_thread_enter(tvm_script_builder* b, const char* name,
                                                    const TVMFFIAny* thread, const void* extent,
                                                    bool rest_of_body);
/* T.env_thread("threadIdx.x"): an IterVar of kind ThreadIndex (no statement). */
tvm_tir_iter_var_obj* tvm_script_tir_env_thread(const char* name, const char* thread_tag,
                                                DLDataType dtype);
/* `tx = T.env_thread("threadIdx.x")` in a script: the IterVar's Var (what the script's
 * expressions use), remembered by the builder so that T.launch_thread(tx, n) finds its tag. */
tvm_tir_var_obj* tvm_script_tir_env_thread_var(tvm_script_builder* b, const char* name,
                                               const char* thread_tag, DLDataType dtype);

/* ---- tir: plain statements ------------------------------------------------------------------- */
/* buffer[indices] = value (indices an Array of PrimExpr; a Ramp index for a slice). An int or
 * float literal value takes the buffer's element type (`A[i] = 0` into float16), as upstream;
 * any other value of another dtype with the same lanes is cast to it (upstream's builder casts
 * too); different lanes are the BufferStore constructor's TypeError. */
int tvm_script_tir_buffer_store(tvm_script_builder* b, const void* buffer, const void* value,
                                const void* indices);
int tvm_script_tir_evaluate(tvm_script_builder* b, const void* value); /* T.evaluate(e) / e */
/* `break` (is_break) / `continue`: T.evaluate(T.break_loop()) / T.evaluate(T.continue_loop()).
 * The innermost open loop frame must be a while loop or a serial / unrolled for loop, with no
 * block or thread launch frame in between: SyntaxError "'break' outside loop" as Python says
 * when there is no loop, ValueError naming what is in the way otherwise. */
int tvm_script_tir_loop_jump(tvm_script_builder* b, bool is_break);
/* Append an already built statement. */
int tvm_script_tir_add_stmt(tvm_script_builder* b, const void* stmt);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_IR_BUILDER_H_ */
