/* parse_doc_internal.h: the front end's (parse.c) internal entry for the semantic parser
 * (parse_func.c), which takes the header imports as a list instead of an ffi.Map. */
#ifndef TVM_SCRIPT_PARSE_DOC_INTERNAL_H_
#define TVM_SCRIPT_PARSE_DOC_INTERNAL_H_

#include <stddef.h>
#include <stdint.h>

/* A header import `from tvm.script import <mod> as <alias>`: byte ranges of the source. */
typedef struct {
  uint32_t alias, alias_n, mod, mod_n;
} tvm_script__import;

/* tvm_script_parse_doc_ex for the semantic parser: *n = the number of header imports, listed in
 * list[0..n) when n <= cap, else (rare) *out_map = their ffi.Map as tvm_script_parse_doc_ex
 * makes it (out_map must then be given). */
void* tvm_script__parse_doc_imports(const char* source, size_t len, const char* filename,
                                    tvm_script__import* list, size_t cap, size_t* n,
                                    void** out_map);

#endif /* TVM_SCRIPT_PARSE_DOC_INTERNAL_H_ */
