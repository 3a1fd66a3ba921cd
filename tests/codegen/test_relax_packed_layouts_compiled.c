/* test_relax_packed_layouts.c in compiled mode (exec_mode_testing.h). */
#define TEST_EXEC_MODE TVM_CODEGEN_EXEC_COMPILED
#include "test_relax_packed_layouts.c"
