def solve(stream, window, stride):
    buffer = []
    for item in stream:
        buffer.append(item)
        if len(buffer) == window:
            yield list(buffer)
            del buffer[:stride]
