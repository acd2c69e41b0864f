"""Parsing a long list of flag words with argparse in linear time: launch lines may
hold thousands of flags, and argparse's own loop is quadratic in them."""

from __future__ import annotations

import argparse
from typing import Sequence

WORDS_PER_PASS = 256


def parse_flag_words(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """`parser.parse_args(words)` (a parser of flags alone) in time linear in the number of
    words. argparse's own loop is quadratic (each flag looks for the next among the positions of
    all flags, and each repeat of an appending flag such as `--set-reg` copies the list so far:
    10,000 of them took seconds), so the words go through it a few hundred at a time, cut only
    before a flag, into one namespace, with each appending flag's list set aside between passes.
    The result is argparse's; of several unknown words, those of the first pass that has any
    are named."""
    words = list(words)
    if len(words) <= WORDS_PER_PASS:
        return parser.parse_args(words)
    flags = parser._option_string_actions
    appending = [a.dest for a in parser._actions if isinstance(a, argparse._AppendAction)]
    kept: dict[str, list] = {dest: [] for dest in appending}
    namespace = argparse.Namespace()
    start = 0
    while start < len(words):
        end = min(start + WORDS_PER_PASS, len(words))
        while end < len(words) and words[end].split("=", 1)[0] not in flags:
            end += 1
        parser.parse_args(words[start:end], namespace)
        for dest in appending:
            kept[dest].extend(getattr(namespace, dest) or ())
            setattr(namespace, dest, [])
        start = end
    for dest in appending:
        setattr(namespace, dest, kept[dest])
    return namespace
