def solve(tags):
    spans, start = [], None
    for i, tag in enumerate(tags + ['O']):
        if tag != 'I' and start is not None:
            spans.append((start, i))
            start = None
        if tag == 'B':
            start = i
    return spans
