/*
 * tvmc.h: what the subcommands of the tvmc driver share: exit codes, argument scanning, loading
 * and parsing a TVMScript file, choosing a function, and reporting errors to the user.
 *
 * Output discipline: a command prints what it is for on stdout and nothing else on success;
 * every problem goes to stderr as "tvmc <command>: <what> (<what to do>)", or, for an error in
 * the program, the located diagnostic the library rendered ("file:line:col: error: ...").
 */
#ifndef TVMC_TVMC_H_
#define TVMC_TVMC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tvm/codegen/codegen.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/function.h>

/* Exit codes (documented in `tvmc --help`). */
enum {
  TVMC_OK = 0,
  TVMC_PROGRAM_ERROR = 1, /* the program is wrong: parse/check/verification failure, fmt diff */
  TVMC_USAGE_ERROR = 2,   /* unknown command or flag, bad flag value, missing file */
  TVMC_FAILURE = 3,       /* internal, compile or run failure */
  TVMC_SKIPPED = 4        /* nothing run: the target's device is not there (run --target cuda) */
};

/* A subcommand: argv[0] is the command's name. */
typedef int (*tvmc_command_fn)(int argc, char** argv);
int tvmc_cmd_build(int argc, char** argv);
int tvmc_cmd_run(int argc, char** argv);
int tvmc_cmd_fmt(int argc, char** argv);
int tvmc_cmd_check(int argc, char** argv);

/* ---- Arguments ---------------------------------------------------------------------------- */
/* Whether argv[*i] is `name` (or `alias`, may be NULL) taking a value: as the next argument or
 * as `name=value`. Returns 1 and sets *out (advancing *i past a separate value), 0 when argv[*i]
 * is something else, -1 when the value is missing (reported; a usage error). */
int tvmc_flag_value(const char* cmd, int argc, char** argv, int* i, const char* name,
                    const char* alias, const char** out);
/* Whether argv[i] asks for help (-h, --help). */
bool tvmc_is_help(const char* arg);
/* Report an unknown option / an unexpected extra argument of cmd; returns TVMC_USAGE_ERROR. */
int tvmc_usage_error(const char* cmd, const char* fmt, ...) TVM_FFI_PRINTF(2, 3);
/* The most bytes of arguments a command may hold at once: TVMC_MEMORY_LIMIT when set (digits,
 * optionally followed by K, M or G), else half the physical memory. *ok false when the variable
 * is unreadable (reported). */
uint64_t tvmc_memory_limit(const char* cmd, bool* ok);
/* A decimal integer; false (reported as a usage error of `flag`) when arg is not one. */
bool tvmc_parse_int(const char* cmd, const char* flag, const char* arg, int64_t* out);
/* `--exec-mode bytecode|compiled` into codegen's exec_mode; false (reported as a usage error)
 * for anything else. */
bool tvmc_parse_exec_mode(const char* cmd, const char* arg, tvm_codegen_options* codegen);

/* ---- Files and IR --------------------------------------------------------------------------- */
/* The contents of path (malloc'd, NUL-terminated), or NULL with the problem reported. */
char* tvmc_read_file(const char* cmd, const char* path, size_t* out_len);
/* Write text to path (or stdout when path is NULL). False with the problem reported. */
bool tvmc_write_text(const char* cmd, const char* path, const char* text, size_t len);
/*
 * Parse the TVMScript file at path into an IRModule or a PrimFunc (a new reference). On
 * failure returns NULL and *out_status is the exit code: TVMC_USAGE_ERROR for an unreadable
 * file, TVMC_PROGRAM_ERROR for an error in the program (its located message printed), and
 * TVMC_PROGRAM_ERROR for a file that holds neither a function nor a module.
 */
void* tvmc_parse_file(const char* cmd, const char* path, bool check_well_formed,
                      int* out_status);
/*
 * The PrimFunc to work on (a new reference) with a "global_symbol" attribute (the function's
 * name in its module, or "main" for a lone function without one). name NULL: the module's only
 * PrimFunc, or the one named "main". NULL when there is no such function (reported, listing the
 * functions there are; a usage error).
 */
tvm_tir_prim_func_obj* tvmc_select_func(const char* cmd, const char* path, const void* ir,
                                        const char* name);
/* Every PrimFunc of ir with a global_symbol (a module; a lone function becomes a module of one),
 * as a new IRModule, or NULL + error. */
/* ir (borrowed) with the default CPU schedule (tvm/tir/schedule.h, sized for the code
 * generator's CPU) applied to its unscheduled PrimFuncs; ir itself when !enabled. A new reference,
 * or NULL + error. */
void* tvmc_schedule(const void* ir, bool enabled);
void* tvmc_module_with_symbols(const void* ir);

/* ---- Errors ------------------------------------------------------------------------------- */
/* Print the raised error (taking it) as "tvmc <cmd>: <what>: <kind>: <message>". */
void tvmc_report_error(const char* cmd, const char* what);

#endif /* TVMC_TVMC_H_ */
