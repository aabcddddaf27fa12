"""Reference solution (ours, not the record's) for FA-100786: streaming stop-string buffer."""


def solve(text, stops):
    # Hold back the longest suffix that is still a proper prefix of some stop string;
    # emit everything before it. A complete stop string is not "partial", so it is emitted.
    for start in range(len(text)):
        tail = text[start:]
        if any(stop.startswith(tail) and tail != stop for stop in stops if stop):
            return text[:start], tail
    return text, ""
