def solve(tokens, *, n=2):
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}
