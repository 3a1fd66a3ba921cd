def f(:
    x = 'unterminated
  y = [i for i in z]
