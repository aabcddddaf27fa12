def solve(defaults, overrides):
    out = dict(defaults)
    for key, value in overrides.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = solve(out[key], value)
        else:
            out[key] = value
    return out
