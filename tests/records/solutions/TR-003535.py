import itertools


def solve(items, size):
    it = iter(items)
    while batch := list(itertools.islice(it, size)):
        yield batch
