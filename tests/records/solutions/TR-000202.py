import unicodedata

def solve(text, size):
    text = unicodedata.normalize('NFC', text)
    return [[i, text[i * size:(i + 1) * size]] for i in range((len(text) + size - 1) // size)]
