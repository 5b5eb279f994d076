"""A tokenizer description read from a file, checked before the ``tokenizers`` library builds or runs it.

Why: a ``tokenizer.json`` (the ``tokenizers`` library's format, in a Hugging Face folder, given with
``--tokenization`` or stored in a native checkpoint's metadata) is untrusted input, and it is a small program: its
normalizers rewrite the text and its regular expressions run on it. Chained ``Replace`` a → aa normalizers double a
text each (26 of them made a 5-character sentence 7.4 GB of memory), and a ``Split`` on ``(a|a){1,20}$`` backtracks
for minutes in Oniguruma, the library's regular-expression engine. So, from the description alone:

- the worst-case growth of the normalizers and pre-tokenizer is computed, as ``length ≤ a·n + b`` composed through
  every step (a ``Sequence`` multiplies), and refused over :data:`~model_core.budgets.MAX_TOKENIZER_GROWTH`;
- the decoder's growth of the tokens it joins is computed the same way, and the tokens a post-processor adds are
  counted: a decoder ``Sequence`` of 40 ``Replace . → ..`` asked for 2.3 GB on the first translation and aborted the
  app;
- the vocabulary, merges and added tokens are counted against :data:`~model_core.budgets.MAX_VOCAB`, the added
  tokens' characters against :data:`~model_core.budgets.MAX_ADDED_TOKEN_CHARS` (the library builds one matcher
  over them when it loads) and a model's affixes against :data:`~model_core.budgets.MAX_TOKENIZER_AFFIX_CHARS`;
- a WordPiece model's longest word (``max_input_chars_per_word``) is held to
  :data:`~model_core.budgets.MAX_WORDPIECE_WORD_CHARS`: WordPiece's cost is the cube of a word's length;
- every regular expression must compile under RE2, a linear-time engine (no backreferences, no lookaround), and
  have no quantifier over a group that holds another quantifier or an alternation (``(a+)+``, ``(a|a){1,20}``) and
  no two variable quantifiers over overlapping characters in one sequence (``\\s*\\s*``): the shapes that make a
  backtracking engine super-linear. What passes runs in Oniguruma all the same (the library has no other engine);
  the checks make it one that backtracks at most linearly, and :data:`~model_core.budgets.TOKENIZE_SECONDS` bounds
  what they cannot see.

Every refusal is one ``ValueError`` line naming the part of the tokenizer and why (an
:class:`~model_core.files.OverBudget` for a count over budget). This module reads only the JSON; it builds nothing.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from .. import budgets
from ..files import CheckpointError, OverBudget

__all__ = ["check_pattern", "check_tokenizer"]

#: worst-case characters out per character in, of each normalizer without settings (Unicode's own bounds: NFC at
#: most 3 code points for one, NFD 4, NFKC and NFKD 18; a lower-cased character is at most 3)
_NORMALIZER_GROWTH: dict[str, int] = {"NFC": 3, "NFD": 4, "NFKC": 18, "NFKD": 18, "Lowercase": 3, "Strip": 1,
                                      "StripAccents": 1, "Nmt": 1, "ByteLevel": 4}
#: pre-tokenizers that only cut the text (or mark pieces without adding characters)
_CUTTING_PRE_TOKENIZERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Punctuation", "Digits",
                                     "UnicodeScripts", "CharDelimiterSplit", "Split", "FixedLength"})

Growth = tuple[float, float]  # (a, b): a text of n characters comes out at most a·n + b long


def _then(first: Growth, second: Growth) -> Growth:
    """The growth of ``first`` followed by ``second``: a₂(a₁n + b₁) + b₂."""
    return first[0] * second[0], second[0] * first[1] + second[1]


def _type(node: Mapping[str, Any]) -> str:
    kind = node.get("type")
    return kind if isinstance(kind, str) else "?"


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not text")
    return value


def _steps_growth(node: Any, part: str, steps_key: str, steps_name: str,
                  one_step: Callable[[Mapping[str, Any], str, str], Growth]) -> Growth:
    """The growth of a normalizer or pre-tokenizer ``node``: none (``None``), a ``Sequence`` of steps under
    ``steps_key`` composed in order, or one step, whose growth ``one_step(node, kind, part)`` says."""
    if node is None:
        return 1.0, 0.0
    if not isinstance(node, Mapping):
        raise ValueError(f"its {part} is not a JSON object")
    kind = _type(node)
    if kind != "Sequence":
        return one_step(node, kind, part)
    steps = node.get(steps_key)
    if not isinstance(steps, list):
        raise ValueError(f"its {part} ({kind}) has no list of {steps_name}")
    growth = (1.0, 0.0)
    for step in steps:
        growth = _then(growth, _steps_growth(step, part, steps_key, steps_name, one_step))
    return growth


def _normalizer_growth(node: Any, part: str) -> Growth:
    return _steps_growth(node, part, "normalizers", "normalizers", _one_normalizer_growth)


def _pre_tokenizer_growth(node: Any, part: str) -> Growth:
    return _steps_growth(node, part, "pretokenizers", "pre-tokenizers", _one_pre_tokenizer_growth)


def _one_normalizer_growth(node: Mapping[str, Any], kind: str, part: str) -> Growth:
    where = f"{part} ({kind})"
    if kind in _NORMALIZER_GROWTH:
        return float(_NORMALIZER_GROWTH[kind]), 0.0
    if kind == "BertNormalizer":
        lowercase = node.get("lowercase", True) is not False
        strip = node.get("strip_accents")
        growth = 1.0
        growth *= 3 if node.get("handle_chinese_chars", True) is not False else 1  # a space either side of a CJK character
        growth *= 4 if (lowercase if strip is None else strip is True) else 1  # accents split off (NFD) before removal
        growth *= 3 if lowercase else 1
        return growth, 0.0
    if kind == "Prepend":
        return 1.0, float(len(_text(node.get("prepend"), f"its {where} text")))
    if kind == "Replace":
        content = _text(node.get("content"), f"its {where} content")
        shortest = _pattern_shortest(node.get("pattern"), where)
        if shortest == 0:  # a pattern that matches nothing inserts its content between every two characters
            return 1.0 + len(content), float(len(content))
        return max(1.0, len(content) / shortest), 0.0
    if kind == "Precompiled":
        return float(_precompiled_growth(node.get("precompiled_charsmap"), where)), 0.0
    raise ValueError(f"its {where} is not a normalizer this app knows")


def _one_pre_tokenizer_growth(node: Mapping[str, Any], kind: str, part: str) -> Growth:
    if kind in _CUTTING_PRE_TOKENIZERS:
        return 1.0, 0.0
    if kind == "ByteLevel":  # each character becomes its UTF-8 bytes, one character each; maybe a space in front
        return 4.0, 1.0
    if kind == "Metaspace":  # each space becomes the replacement; maybe one in front
        replacement = len(_text(node.get("replacement", "▁"), f"its {part} ({kind}) replacement"))
        return max(1.0, float(replacement)), float(replacement)
    raise ValueError(f"its {part} ({kind}) is not a pre-tokenizer this app knows")


#: decoders that only join, cut or map tokens to no more characters than they hold: growth (a, b) per token
_DECODER_GROWTH: dict[str, Growth] = {"BPEDecoder": (1.0, 1.0), "ByteLevel": (1.0, 0.0), "WordPiece": (1.0, 1.0),
                                      "Metaspace": (1.0, 1.0), "CTC": (1.0, 1.0), "Fuse": (1.0, 0.0), "Strip": (1.0, 0.0),
                                      "ByteFallback": (1.0, 0.0)}


def _decoder_growth(node: Any, part: str) -> Growth:
    """The growth of each token through the decoder: a·(its characters) + b, composed through a ``Sequence``."""
    return _steps_growth(node, part, "decoders", "decoders", _one_decoder_growth)


def _one_decoder_growth(node: Mapping[str, Any], kind: str, part: str) -> Growth:
    if kind in _DECODER_GROWTH:
        return _DECODER_GROWTH[kind]
    if kind == "Replace":  # the same rule as the normalizer's, on each token
        return _one_normalizer_growth(node, kind, part)
    raise ValueError(f"its {part} ({kind}) is not a decoder this app knows")


def _post_processor_added(node: Any, part: str = "post_processor") -> Growth:
    """What a post-processor does to a text's tokens: (times the text's own tokens are repeated, tokens added)."""
    if node is None:
        return 1.0, 0.0
    if not isinstance(node, Mapping):
        raise ValueError(f"its {part} is not a JSON object")
    kind = _type(node)
    if kind == "Sequence":
        steps = node.get("processors")
        if not isinstance(steps, list):
            raise ValueError(f"its {part} ({kind}) has no list of processors")
        total = (1.0, 0.0)
        for step in steps:
            total = _then(total, _post_processor_added(step, part))
        return total
    if kind == "ByteLevel":
        return 1.0, 0.0
    if kind in ("BertProcessing", "RobertaProcessing"):  # [CLS] A [SEP] (B [SEP]): four at most
        return 1.0, 4.0
    if kind != "TemplateProcessing":
        raise ValueError(f"its {part} ({kind}) is not a post-processor this app knows")
    specials = node.get("special_tokens")
    specials = specials if isinstance(specials, Mapping) else {}
    worst = (1.0, 0.0)
    for template in ("single", "pair"):
        pieces = node.get(template)
        if not isinstance(pieces, list):
            continue
        repeats = added = 0
        for piece in pieces:
            if isinstance(piece, Mapping) and isinstance(piece.get("Sequence"), Mapping):
                repeats += 1
            elif isinstance(piece, Mapping) and isinstance(piece.get("SpecialToken"), Mapping):
                special = specials.get(piece["SpecialToken"].get("id"))
                ids = special.get("ids") if isinstance(special, Mapping) else None
                added += len(ids) if isinstance(ids, list) else 1
        worst = (max(worst[0], float(repeats)), max(worst[1], float(added)))
    return worst


def _added_token_chars(added: Any) -> int:
    """The characters of every added token together (what the library's added-token matcher is built over)."""
    if not isinstance(added, list):
        return 0
    return sum(len(token["content"]) for token in added if isinstance(token, Mapping) and isinstance(token.get("content"), str))


def _precompiled_growth(charsmap: Any, where: str) -> int:
    """The longest replacement a sentencepiece character map holds, in characters: at most what one character becomes.

    The map is base64 of a little-endian u32 trie size, the trie, then the replacements, each ending in a NUL byte.
    """
    if charsmap is None or charsmap == "":
        return 1
    try:
        blob = base64.b64decode(_text(charsmap, f"its {where} map"), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"its {where} map is not base64") from exc
    size = int.from_bytes(blob[:4], "little") if len(blob) >= 4 else -1
    if size < 0 or 4 + size > len(blob):
        raise ValueError(f"its {where} map is malformed (its trie runs past its end)")
    replacements = blob[4 + size:].split(b"\0")
    return max(1, *(len(r.decode("utf-8", "replace")) for r in replacements))


def _pattern_shortest(pattern: Any, where: str) -> int:
    """The fewest characters a ``Replace`` pattern matches (0 when it can match nothing)."""
    if not isinstance(pattern, Mapping) or len(pattern) != 1:
        raise ValueError(f"its {where} pattern is neither a String nor a Regex")
    if "String" in pattern:
        return len(_text(pattern["String"], f"its {where} pattern"))
    if "Regex" in pattern:
        try:
            return int(_parse(_text(pattern["Regex"], f"its {where} pattern")).getwidth()[0])
        except (re.error, ValueError, OverflowError):
            return 0  # checked for safety elsewhere; unknown width: assume the worst
    raise ValueError(f"its {where} pattern is neither a String nor a Regex")


# ---------------------------------------------------------------------------------------------- regular expressions
#: Unicode properties (``\p{L}``) as Oniguruma and RE2 write them; Python's parser has none, so each becomes a
#: private-use character before the structure is read, and is tested with :mod:`unicodedata` after
_PROPERTY = re.compile(r"\\([pP])(\{\^?[A-Za-z_ &]+\}|[A-Za-z])")
_PRIVATE = 0xF0000


def _parse(pattern: str) -> Any:
    """The pattern's structure as Python's own parser reads it, its Unicode properties as placeholders."""
    return _parse_with_properties(pattern)[0]


def _parse_with_properties(pattern: str) -> tuple[Any, dict[int, Callable[[str], bool]]]:
    import re._parser as sre_parse  # Python's own regular-expression parser: the structure, nothing compiled

    properties: dict[int, Callable[[str], bool]] = {}
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            found = _PROPERTY.match(pattern, i)
            if found:
                code = _PRIVATE + len(properties)
                properties[code] = _property_test(found.group(1) == "P", found.group(2).strip("{}"))
                out.append(chr(code))
                i = found.end()
                continue
            escaped = pattern[i + 1]
            out.append("\\Z" if escaped == "z" else pattern[i:i + 2])
            i += 2
            continue
        out.append(pattern[i])
        i += 1
    return sre_parse.parse("".join(out)), properties


def _property_test(negated: bool, name: str) -> Callable[[str], bool]:
    """Whether a character has the Unicode general category ``name`` (``L``, ``Lu``, ``N`` …); a script or any other
    property is taken to hold for every character (which only makes the overlap check stricter)."""
    if name.startswith("^"):
        negated, name = not negated, name[1:]
    if len(name) in (1, 2) and name[0] in "LMNPSZC":
        test = lambda c: unicodedata.category(c).startswith(name)
        return (lambda c: not test(c)) if negated else test
    return lambda c: True


#: the characters two classes are compared on: ASCII, Latin-1, a letter, digit, space and mark of other scripts
_SAMPLE = "".join(chr(i) for i in range(0x250)) + "ΩЖשع猫ｱ가٣१①₂\u3000\u2028\u200b\u0301▁Ġ"


def _first(items: Any, properties: dict[int, Callable[[str], bool]]) -> Callable[[str], bool]:
    """Which characters a sequence can start with (every character when unsure)."""
    from re._constants import AT, MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT, SUBPATTERN

    for op, av in items:
        if op is AT:
            continue
        if op is SUBPATTERN:
            return _first(av[-1], properties)
        if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
            return _first(av[2], properties) if av[0] > 0 else (lambda c: True)
        return _single(op, av, properties)
    return lambda c: True


def _single(op: Any, av: Any, properties: dict[int, Callable[[str], bool]]) -> Callable[[str], bool]:
    """A predicate for one character-matching item (a literal, a class, ``.``); every character for anything else."""
    from re._constants import ANY, CATEGORY, IN, LITERAL, NEGATE, NOT_LITERAL, RANGE

    def literal(code: int) -> Callable[[str], bool]:
        if code in properties:
            return properties[code]
        ch = chr(code)
        return lambda c: c == ch or c.lower() == ch.lower()  # case-insensitively: stricter, never looser

    if op is LITERAL:
        return literal(av)
    if op is NOT_LITERAL:
        test = literal(av)
        return lambda c: not test(c)
    if op is ANY:
        return lambda c: True
    if op is IN:
        negated = any(o is NEGATE for o, _ in av)
        tests: list[Callable[[str], bool]] = []
        for o, a in av:
            if o is LITERAL:
                tests.append(literal(a))
            elif o is RANGE:
                lo, hi = a
                tests.append(lambda c, lo=lo, hi=hi: lo <= ord(c) <= hi)
            elif o is CATEGORY:
                category = re.compile({"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
                                       "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w"}.get(str(a), r"\W"))
                tests.append(lambda c, category=category: category.fullmatch(c) is not None)
            elif o is not NEGATE:
                tests.append(lambda c: True)
        if negated:
            return lambda c: not any(t(c) for t in tests)
        return lambda c: any(t(c) for t in tests)
    return lambda c: True


def _overlap(one: Callable[[str], bool], other: Callable[[str], bool]) -> bool:
    return any(one(c) and other(c) for c in _SAMPLE)


def _walk(items: Any, properties: dict[int, Callable[[str], bool]]) -> str | None:
    """Why the structure can backtrack super-linearly, or None."""
    from re._constants import (
        ASSERT,
        ASSERT_NOT,
        ATOMIC_GROUP,
        BRANCH,
        GROUPREF,
        GROUPREF_EXISTS,
        MAX_REPEAT,
        MIN_REPEAT,
        POSSESSIVE_REPEAT,
        SUBPATTERN,
    )

    repeats = (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT)
    variable: list[Callable[[str], bool]] = []  # what each variable quantifier of this sequence repeats

    def flat(seq: Any) -> str | None:
        for op, av in seq:
            if op in (GROUPREF, GROUPREF_EXISTS, ASSERT, ASSERT_NOT, ATOMIC_GROUP):
                return "has a backreference, lookaround or atomic group"
            if op is SUBPATTERN:
                why = flat(av[-1])
            elif op is BRANCH:
                why = next((w for w in (_walk(b, properties) for b in av[1]) if w), None)
            elif op in repeats:
                lo, hi, body = av
                if hi > 1 and _varies(body):
                    return "repeats a group that holds another quantifier or an alternation (like (a+)+ or (a|a)*)"
                why = _walk(body, properties)
                if hi != lo:
                    variable.append(_first(body, properties))
            else:
                why = None
            if why:
                return why
        return None

    why = flat(items)
    if why:
        return why
    for i, one in enumerate(variable):
        if any(_overlap(one, other) for other in variable[i + 1:]):
            return "has two quantifiers over overlapping characters in one sequence (like \\s*\\s*)"
    return None


def _varies(items: Any) -> bool:
    """Whether a sequence holds a quantifier of varying count or an alternation, at any depth."""
    from re._constants import BRANCH, MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT, SUBPATTERN

    for op, av in items:
        if op is BRANCH:
            return True
        if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT) and (av[0] != av[1] or _varies(av[2])):
            return True
        if op is SUBPATTERN and _varies(av[-1]):
            return True
    return False


def check_pattern(pattern: str) -> None:
    """Refuse (``ValueError``, saying why) a regular expression that could make matching super-linear."""
    if len(pattern) > budgets.MAX_TOKENIZER_PATTERN_CHARS:
        raise OverBudget(f"a pattern of {len(pattern):,} characters, over the {budgets.MAX_TOKENIZER_PATTERN_CHARS:,} this app reads")
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print its own complaint on standard error
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"cannot run in linear time ({detail}: backreferences and lookaround can take "
                         "exponential time)") from exc
    try:
        parsed, properties = _parse_with_properties(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"cannot be proven safe (its structure does not parse: {exc})") from exc
    why = _walk(parsed, properties)
    if why:
        raise ValueError(f"{why}, which can take exponential or polynomial time")


def _check_patterns(node: Any, part: str, allow: bool) -> None:
    """Every ``{"Regex": …}`` under ``node``, wherever it sits (normalizers, pre-tokenizers, decoders …)."""
    stack: list[tuple[Any, str]] = [(node, part)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, Mapping):
            kind = item.get("type")
            here = f"{part} ({kind})" if isinstance(kind, str) else where
            if "Regex" in item:
                pattern = _text(item["Regex"], f"its {here} pattern")
                if not allow:
                    raise ValueError(f"its {here} uses a regular expression, which this app's tokenizers never do "
                                     "(a crafted pattern can make the tokenizers library hang or crash)")
                short = pattern if len(pattern) <= 60 else pattern[:59] + "…"
                try:
                    check_pattern(pattern)
                except OverBudget as exc:
                    raise OverBudget(f"its {here} pattern: {exc}") from exc
                except ValueError as exc:
                    raise ValueError(f"its {here} pattern {short!r} {exc}") from exc
            stack.extend((v, here) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, where) for v in item)


def check_tokenizer(data: Mapping[str, Any], *, regex: bool = True) -> None:
    """Refuse a ``tokenizers`` description that could blow up (one ``ValueError`` line naming the part and why).

    ``data`` is the parsed ``tokenizer.json`` (``model``, ``normalizer``, ``pre_tokenizer``, ``added_tokens`` …).
    ``regex=False`` refuses every regular expression (the app's own tokenizers never use one).
    """
    model = data.get("model")
    vocab = model.get("vocab") if isinstance(model, Mapping) else None
    merges = model.get("merges") if isinstance(model, Mapping) else None
    added = data.get("added_tokens")
    count = (len(vocab) if isinstance(vocab, (dict, list)) else 0) + (len(added) if isinstance(added, list) else 0)
    if count > budgets.MAX_VOCAB:
        raise OverBudget(f"a vocabulary of {count:,} tokens, over the {budgets.MAX_VOCAB:,} this app builds (added tokens included)")
    if isinstance(merges, list) and len(merges) > budgets.MAX_VOCAB:
        raise OverBudget(f"{len(merges):,} merges, over the {budgets.MAX_VOCAB:,} this app builds")
    chars = _added_token_chars(added)
    if chars > budgets.MAX_ADDED_TOKEN_CHARS:
        raise OverBudget(f"added tokens of {chars:,} characters together, over the {budgets.MAX_ADDED_TOKEN_CHARS:,} this app builds")
    _check_wordpiece(model)
    _check_affixes(model)
    for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder", "model"):
        _check_patterns(data.get(part), part, regex)
    growth = _then(_normalizer_growth(data.get("normalizer"), "normalizer"),
                   _pre_tokenizer_growth(data.get("pre_tokenizer"), "pre_tokenizer"))
    if growth[0] > budgets.MAX_TOKENIZER_GROWTH:
        times = f"{growth[0]:,.0f}" if growth[0] < 1e15 else f"{growth[0]:.2g}"
        raise ValueError(f"its normalizer and pre_tokenizer can make a text {times} times longer, over the "
                         f"{budgets.MAX_TOKENIZER_GROWTH} this app allows (chained Replace or Prepend steps multiply)")
    if growth[1] > budgets.MAX_TOKENIZER_PREPEND_CHARS:
        raise ValueError(f"its normalizer and pre_tokenizer can add {growth[1]:,.0f} characters to a text, over the "
                         f"{budgets.MAX_TOKENIZER_PREPEND_CHARS:,} this app allows")
    _check_output_growth(data)


def _times(value: float) -> str:
    return f"{value:,.0f}" if value < 1e15 else f"{value:.2g}"


def _check_output_growth(data: Mapping[str, Any]) -> None:
    """The decoder and the post-processor, bounded like the normalizers: a decoded token at most
    :data:`~model_core.budgets.MAX_TOKENIZER_GROWTH` times its characters plus a few, a post-processor adding at
    most :data:`~model_core.budgets.MAX_TOKENIZER_PREPEND_CHARS` tokens and repeating the text's own at most
    :data:`~model_core.budgets.MAX_TOKENIZER_GROWTH` times."""
    a, b = _decoder_growth(data.get("decoder"), "decoder")
    if a + b > budgets.MAX_TOKENIZER_GROWTH:
        raise ValueError(f"its decoder can make a translation {_times(a + b)} times longer, over the "
                         f"{budgets.MAX_TOKENIZER_GROWTH} this app allows (chained Replace steps multiply)")
    repeats, added = _post_processor_added(data.get("post_processor"))
    if repeats > budgets.MAX_TOKENIZER_GROWTH:
        raise ValueError(f"its post_processor repeats a text's tokens {_times(repeats)} times, over the "
                         f"{budgets.MAX_TOKENIZER_GROWTH} this app allows")
    if added > budgets.MAX_TOKENIZER_PREPEND_CHARS:
        raise ValueError(f"its post_processor adds {_times(added)} tokens to a text, over the "
                         f"{budgets.MAX_TOKENIZER_PREPEND_CHARS:,} this app allows")


def _check_affixes(model: Any) -> None:
    """A model's prefix or suffix is copied into every piece it tries: held to a few characters."""
    if not isinstance(model, Mapping):
        return
    for name in ("continuing_subword_prefix", "end_of_word_suffix"):
        value = model.get(name)
        if isinstance(value, str) and len(value) > budgets.MAX_TOKENIZER_AFFIX_CHARS:
            raise ValueError(f"its model ({_type(model)}) {name} is {len(value):,} characters long, over the "
                             f"{budgets.MAX_TOKENIZER_AFFIX_CHARS} this app allows")


def _check_wordpiece(model: Any) -> None:
    """A WordPiece model tries every piece of a word from the longest down: a word of n characters costs ~n³/6
    character comparisons, so the longest word it splits (longer ones become its unknown token) is bounded."""
    if not isinstance(model, Mapping) or _type(model) != "WordPiece":
        return
    cap = model.get("max_input_chars_per_word", 100)  # the tokenizers library's default
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ValueError(f"its model (WordPiece) max_input_chars_per_word is not a whole number of characters: {str(cap)[:40]!r}")
    if cap > budgets.MAX_WORDPIECE_WORD_CHARS:
        shown = f"{cap:,}" if cap < 10**15 else "more than 10^15"
        raise ValueError(f"its model (WordPiece) splits words of up to {shown} characters (max_input_chars_per_word), over the "
                         f"{budgets.MAX_WORDPIECE_WORD_CHARS} this app allows (a word's cost grows with the cube of its length)")


def check_tokenizer_file(label: str, data: Any) -> None:
    """:func:`check_tokenizer` on a tokenizer read from a file (a Hugging Face folder, ``--tokenization FILE.json``):
    its refusal is one line starting with ``label``, an :class:`OverBudget` for a budget, else a
    :class:`CheckpointError`."""
    if not isinstance(data, Mapping):
        raise CheckpointError(f"{label} is not a JSON object")
    try:
        check_tokenizer(data)
    except OverBudget as exc:
        raise OverBudget(f"{label}: {exc}") from exc
    except ValueError as exc:
        raise CheckpointError(f"{label}: {exc}") from exc
