# Lexical forms a user writes: comments everywhere, blank lines, continuation inside brackets
# and after a backslash, both quote styles, a docstring, trailing commas.
from tvm.script import tirx as T  # the TIR dialect


@T.prim_func
def lexical(
    A: T.Buffer((16, 16), 'float32'),  # single quotes
    B: T.Buffer(
        (16, 16),
        "float32",
    ),
):
    """A docstring is allowed and ignored."""

    # A comment on its own line.

    for i, j in T.grid(
        16,
        16,  # trailing comment inside brackets
    ):
        B[i, j] = A[i, j] + \
            T.float32(1)   # continued after a backslash


        # blank lines and comments between statements
        B[i, j] = (B[i, j]
                   * T.float32(2))
    T.evaluate(T.call_extern("int32", 'say', "it's", 'a "quote"'))
