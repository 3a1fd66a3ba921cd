/* script_parse_bench.c: throughput of the TVMScript front end on a generated module of typical
 * TIR text (about 5 MB by default; the first argument sets the size in MB): the streaming lexer
 * alone (as the parser drives it; needs libscript/src on the include path), the lexer into one
 * token array (tvm_script_lex), and lexer + parser to a Doc tree. Prints MB/s, the median of
 * several runs. A second argument names a file to write the generated text to (to compare with
 * `python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())"` on the same input). */
#include <string.h>
#include <tvm/script/parser.h>

#include "bench_util.h"
#include "lex_internal.h"

/* One TIR function in the printer's canonical style, varied by index. */
static void append_function(tvm_ffi_strbuf* b, int i) {
  tvm_ffi_strbuf_printf(
      b,
      "    @T.prim_func(private=True)\n"
      "    def matmul_%d(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), "
      "\"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
      "        T.func_attr({\"global_symbol\": \"matmul_%d\", \"tir.noalias\": True})\n"
      "        # with T.sblock(\"root\"):\n"
      "        for i, j, k in T.grid(128, 128, %d):\n"
      "            with T.sblock(\"C\"):\n"
      "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                T.reads(A[vi, vk], B[vk, vj])\n"
      "                T.writes(C[vi, vj])\n"
      "                with T.init():\n"
      "                    C[vi, vj] = T.float32(0.0)\n"
      "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
      "        for i_0 in range(%d):\n"
      "            for ax0 in T.serial(16):\n"
      "                if i_0 * 16 + ax0 < 1000 and ax0 %% 2 == 0:\n"
      "                    C[i_0 // 8, ax0 + 1] = T.max(C[i_0 // 8, ax0], T.float32(%d.5)) "
      "if i_0 > 3 else T.float32(0)\n"
      "                    x: T.let = T.Cast(\"int64\", i_0 * 4 + ax0 - 1)\n"
      "                    C[0:4, i_0] = T.call_extern(\"float32\", \"f\", x, 1e-3)\n"
      "\n",
      i, i, 128 + i % 7, 8 + i % 5, i % 10);
}

int main(int argc, char** argv) {
  double mb = argc > 1 ? atof(argv[1]) : 5.0;
  if (mb <= 0) mb = 5.0;
  tvm_ffi_strbuf src = {0};
  tvm_ffi_strbuf_puts(&src,
                      "# from tvm.script import ir as I\n"
                      "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
                      "@I.ir_module\nclass Module:\n");
  for (int i = 0; (double)src.size < mb * 1e6; ++i) append_function(&src, i);
  if (src.failed) return 1;
  size_t n = src.size;
  if (argc > 2) {
    FILE* f = fopen(argv[2], "wb");
    if (!f || fwrite(src.data, 1, n, f) != n) return 1;
    fclose(f);
  }

  /* Check that it parses before timing. */
  void* doc = tvm_script_parse_doc(src.data, n, "bench.py");
  if (!doc) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "parse failed: %s\n", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    return 1;
  }
  tvm_ffi_release(doc);
  tvm_script_tokens toks;
  if (tvm_script_lex(src.data, n, "bench.py", &toks) != 0) return 1;
  size_t ntok = toks.count;
  tvm_script_tokens_free(&toks);

  double stream_ns, lex_ns, parse_ns;
  BENCH_MEDIAN_NS(stream_ns, 5, 1, {
    tvm_script__lexer lx;
    size_t total = 0;
    tvm_script__lexer_init(&lx, src.data, n, "bench.py");
    while (!lx.done) {
      if (tvm_script__lexer_fill(&lx, 1024) != 0) return 1;
      total += lx.count;
      tvm_script__lexer_drop(&lx, lx.count);
    }
    BENCH_KEEP(total);
    tvm_script__lexer_free(&lx);
  });
  BENCH_MEDIAN_NS(lex_ns, 5, 1, {
    tvm_script_lex(src.data, n, "bench.py", &toks);
    BENCH_KEEP(toks.count);
    tvm_script_tokens_free(&toks);
  });
  BENCH_MEDIAN_NS(parse_ns, 5, 1, {
    doc = tvm_script_parse_doc(src.data, n, "bench.py");
    BENCH_KEEP(doc);
    tvm_ffi_release(doc);
  });
  printf("%-34s %10s %12s\n", "script_parse_bench", "MB/s", "ms");
  printf("input: %.2f MB, %zu tokens (allocator: %s)\n", (double)n / 1e6, ntok,
         tvm_ffi_allocator_name());
  printf("%-34s %10.1f %12.2f\n", "lex (streaming)", (double)n / 1e6 / (stream_ns / 1e9),
         stream_ns / 1e6);
  printf("%-34s %10.1f %12.2f\n", "lex to a token array", (double)n / 1e6 / (lex_ns / 1e9),
         lex_ns / 1e6);
  printf("%-34s %10.1f %12.2f\n", "lex + parse to Doc", (double)n / 1e6 / (parse_ns / 1e9),
         parse_ns / 1e6);
  tvm_ffi_strbuf_free(&src);
  return 0;
}
