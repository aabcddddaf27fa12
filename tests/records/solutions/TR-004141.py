import math

def solve(probs):
    return [-math.log(p) for p in probs]
