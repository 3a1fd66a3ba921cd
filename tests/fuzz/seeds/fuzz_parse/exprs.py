x: T.let = a + b * c ** -d
y = not a and b or c if a < b <= c else lambda u, v: u | v ^ ~w
z = A[1:2, :, ::3, i:] , {"k": 0x1F, 'r': r"\d"}, [1_000, .5, 1e-3, 0o17, 0b101]
s = """doc
string""" 'x\n\t\x41\u00e9'
q += 1; r //= 2
assert x > 0, "msg"
