def f(a: T.handle, n: T.int32) -> T.int32:
	"""doc"""
	if n > 0:
		return n
	elif n == 0:
		pass
	else:
		while n < 0:
			n = n + \
				1
	with T.sblock("b") as b, T.init():
		return (n,
		  0)
