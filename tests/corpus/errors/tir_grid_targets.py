# expect: ValueError 6:17
from tvm.script import tir as T

@T.prim_func
def main():
    for a, b in T.grid(1, 2, 3):
        T.evaluate(0)
