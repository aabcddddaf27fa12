def solve(labels):
    return {label: index for index, label in enumerate(sorted(set(labels)))}
