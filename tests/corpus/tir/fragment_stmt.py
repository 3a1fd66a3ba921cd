# A fragment: statements outside any definition, their free variables declared first (the way
# the printer prints a statement on its own).
from tvm.script import tirx as T

A = T.Buffer((128, 128), "float32")
n = T.int32()
for i in range(n):
    A[i, 0] = A[i, i] + T.float32(1)
