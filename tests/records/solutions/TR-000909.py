def solve(n, pad=0):
    return [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)]
