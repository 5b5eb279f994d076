"""Word-level tokens back to text as a person writes it (``n ' est - ce pas .`` → ``N'est-ce pas.``).

The word tokenizer cuts punctuation off words (``tokenizers.Tokenizer``, kind ``word``), so the toy grammars
write French elision and hyphens as tokens of their own; this puts them back. One function shared by the
tokenizer's ``decode`` and the typing guide (which is torch- and tokenizers-free), so both show the same text.
The grammars' tokens are lower case (one token per word, whatever its place); :func:`as_written` capitalises the
text's first letter, as a sentence is written, and leaves the tokens alone.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

#: Chinese punctuation touches its neighbours as Chinese characters do (猫。 猫，狗)
CJK_PUNCTUATION = frozenset("。，！？、；：")
#: "?" and "!" keep the space French typography puts before them; "." and "," do not
NO_SPACE_BEFORE = frozenset({".", ",", "'", "-", *CJK_PUNCTUATION})
NO_SPACE_AFTER = frozenset({"'", "-", *CJK_PUNCTUATION})


def is_cjk(token: str) -> bool:
    """A single CJK character (a Chinese character is a token of its own and needs no space)."""
    return len(token) == 1 and unicodedata.name(token, "").startswith("CJK")


def detokenize(tokens: Iterable[str], punctuation: bool = True) -> str:
    """Tokens joined by spaces, except between CJK characters and (``punctuation``) before . , ' - and after ' -."""
    before = NO_SPACE_BEFORE if punctuation else frozenset()
    after = NO_SPACE_AFTER if punctuation else frozenset()
    out = ""
    previous = ""
    for tok in tokens:
        if out and not (is_cjk(tok) and is_cjk(out[-1])) and tok not in before and previous not in after:
            out += " "
        out += tok
        previous = tok
    return out


def sentence_case(text: str) -> str:
    """``text`` with its first letter upper case when its first word is a word (two characters or more: "j'ai",
    "le"); a first word of one character is a symbol of the algorithmic tasks ("a b c"), kept as it is."""
    first = text.split(" ", 1)[0]
    if len(first) < 2:
        return text
    for k, ch in enumerate(text):
        if ch.isalpha():
            return text[:k] + ch.upper() + text[k + 1:]
    return text


def as_written(tokens: Iterable[str]) -> str:
    """The grammars' tokens as a person writes the sentence: joined (:func:`detokenize`), its first letter upper case."""
    return sentence_case(detokenize(tokens))
