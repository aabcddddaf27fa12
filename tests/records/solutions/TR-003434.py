def solve(stop, step):
    if type(step) is not int or step <= 0:
        raise ValueError(f"step must be a positive int, got {step!r}")
    return list(range(0, stop, step))
