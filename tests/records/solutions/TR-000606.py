def solve(xs):
    xs[:] = list(dict.fromkeys(xs))
