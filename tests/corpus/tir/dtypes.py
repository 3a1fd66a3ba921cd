# Buffers and literals of every common dtype.
from tvm.script import tirx as T


@T.prim_func
def dtypes(
    F16: T.Buffer((4,), "float16"),
    BF16: T.Buffer((4,), "bfloat16"),
    F32: T.Buffer((4,), "float32"),
    F64: T.Buffer((4,), "float64"),
    I8: T.Buffer((4,), "int8"),
    I16: T.Buffer((4,), "int16"),
    I32: T.Buffer((4,), "int32"),
    I64: T.Buffer((4,), "int64"),
    U8: T.Buffer((4,), "uint8"),
    U16: T.Buffer((4,), "uint16"),
    U32: T.Buffer((4,), "uint32"),
    U64: T.Buffer((4,), "uint64"),
    Bo: T.Buffer((4,), "bool"),
):
    F16[0] = T.float16(1.5)
    BF16[0] = T.bfloat16(0.25)
    F32[0] = T.float32(-2.5)
    F64[0] = T.float64(1e100)
    I8[0] = T.int8(-128)
    I16[0] = T.int16(300)
    I32[0] = 7
    I64[0] = T.int64(1) << T.int64(40)
    U8[0] = T.uint8(255)
    U16[0] = T.uint16(65535)
    U32[0] = T.uint32(4000000000)
    U64[0] = T.uint64(1)
    Bo[0] = T.bool(True)
    Bo[1] = T.bool(False)
    Bo[2] = I32[0] > 3
    F16[1] = F16[0] * T.float16(2) + F16[2]
    BF16[1] = BF16[0] + BF16[2]
    I64[1] = I64[0] + T.int64(5)
    U8[1] = U8[0] - U8[2]
