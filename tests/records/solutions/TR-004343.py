def solve(rows):
    return sum(1 for row in rows if row[0] > 0)
