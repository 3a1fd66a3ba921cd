/*
 * main.c: the tvmc command table, `tvmc --help` and `tvmc --version`.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/script/doc.h>
#include <tvm/tir/node.h>

#include "tvmc.h"

static const struct {
  const char* name;
  tvmc_command_fn fn;
  const char* summary;
} kCommands[] = {
    {"build", tvmc_cmd_build, "compile TVMScript kernels or a Relax model into a shared library"},
    {"run", tvmc_cmd_run, "compile a kernel or model, check it against the reference and time it"},
    {"fmt", tvmc_cmd_fmt, "print a TVMScript file in canonical form (or check that it is)"},
    {"check", tvmc_cmd_check, "parse and check a TVMScript file, reporting located errors"},
};
enum { NUM_COMMANDS = sizeof(kCommands) / sizeof(kCommands[0]) };

static void print_help(void) {
  printf("usage: tvmc <command> [options] FILE\n"
         "       tvmc --version | --help\n"
         "\n"
         "TVMScript compiler driver of tvm-c: parse, check, lower and compile TIR kernels and\n"
         "Relax models.\n"
         "\n"
         "commands:\n");
  for (int k = 0; k < NUM_COMMANDS; ++k)
    printf("  %-7s %s\n", kCommands[k].name, kCommands[k].summary);
  printf("\n"
         "`tvmc <command> --help` describes each command.\n"
         "\n"
         "exit status:\n"
         "  0  success\n"
         "  1  the program is wrong: a parse, well-formedness or verification error, a kernel\n"
         "     result that differs from the reference interpreter (or evaluator), a Relax model\n"
         "     that rejected its arguments, or `fmt --check` found a difference\n"
         "  2  usage error: unknown command or option, bad option value, missing file\n"
         "  3  internal, compile or run failure\n"
         "  4  skipped: `run --target cuda` without a CUDA GPU (the kernel compiled, nothing ran)\n");
}

static void print_version(void) {
  printf("tvmc (tvm-c)\n"
         "  libtvmffi  %s\n"
         "  libtir     %s\n"
         "  libscript  %s\n"
         "  libcodegen %s\n",
         tvm_ffi_version(), tvm_tir_version(), tvm_script_version(), tvm_codegen_version());
}

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return TVMC_USAGE_ERROR;
  }
  const char* cmd = argv[1];
  if (tvmc_is_help(cmd) || strcmp(cmd, "help") == 0) {
    print_help();
    return TVMC_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    print_version();
    return TVMC_OK;
  }
  for (int k = 0; k < NUM_COMMANDS; ++k)
    if (strcmp(cmd, kCommands[k].name) == 0) return kCommands[k].fn(argc - 1, argv + 1);
  if (cmd[0] == '-')
    fprintf(stderr, "tvmc: unknown option '%s' (see `tvmc --help`)\n", cmd);
  else
    fprintf(stderr, "tvmc: unknown command '%s' (commands: build, run, fmt, check; see `tvmc --help`)\n",
            cmd);
  return TVMC_USAGE_ERROR;
}
