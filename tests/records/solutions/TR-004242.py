def solve(text):
    return [w.lower() for w in text.split()]
