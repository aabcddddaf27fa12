from dataclasses import astuple, dataclass, field


@dataclass
class Span:
    start: int
    end: int
    token: str = field(default='')


def solve(text):
    spans, i = [], 0
    for token in text.split():
        start = text.index(token, i)
        spans.append(Span(start, start + len(token), token))
        i = start + len(token)
    return spans
