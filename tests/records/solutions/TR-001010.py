def solve(steps, *, peak, warmup):
    return [min(peak * (t + 1) / warmup, peak) for t in range(steps)]
