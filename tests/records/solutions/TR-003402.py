def solve(text, words=None):
    return text.split()
