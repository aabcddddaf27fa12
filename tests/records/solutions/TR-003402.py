def solve(text):
    return text.split()
