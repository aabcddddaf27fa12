def solve(rows):
    count = 0
    for row in rows:
        if row[0] > 0:
            count += 1
    return count
