# break and continue spelled as upstream's builtins (T.break_loop(), T.continue_loop(), bare or
# under T.evaluate): the same IR as the keywords, printed as the keywords.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if A[i] > 0:
            T.evaluate(T.break_loop())
        if A[i] == 0:
            T.continue_loop()
        A[i] = A[i] * 2
    while A[0] < 100:
        A[0] = A[0] + 7
        if A[0] % 3 == 0:
            T.break_loop()
