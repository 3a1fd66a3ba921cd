/* test_relax_inspect_ops.c in compiled mode (exec_mode_testing.h). */
#define TEST_EXEC_MODE TVM_CODEGEN_EXEC_COMPILED
#include "test_relax_inspect_ops.c"
