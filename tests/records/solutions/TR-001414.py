def solve(base, override):
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = solve(out[key], value)
        else:
            out[key] = value
    return out
