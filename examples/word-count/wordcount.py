"""Counts the words of a text: the demo's code, with one real bug (see README.md)."""

import sys

PUNCTUATION = ".,;:!?\"'()"


def count_words(text):
    """How often each word occurs, ignoring case and the punctuation around words."""
    counts = {}
    for word in text.split(" "):
        word = word.strip(PUNCTUATION).lower()
        if word:
            counts[word] = counts.get(word, 0) + 1
    return counts


def most_common(text, n=3):
    """The n most frequent words, most frequent first; ties in alphabetical order."""
    counts = count_words(text)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


if __name__ == "__main__":
    for word, count in most_common(sys.stdin.read()):
        print(f"{count:5} {word}")
