"""Reference solution (ours, not the record's) for FA-100061: preference pairs from replayed IDs."""


def solve(candidates):
    # Keep the first occurrence of each response ID: a replay is the same response.
    first = {}
    for response_id, text, score in candidates:
        first.setdefault(response_id, (response_id, text, score))
    unique = list(first.values())
    if len(unique) < 2:
        return None
    # Highest and lowest score; ties go to the lexically smaller ID.
    best = min(unique, key=lambda r: (-r[2], r[0]))
    worst = min(unique, key=lambda r: (r[2], r[0]))
    return [best[0], worst[0]]
