"""English → Simplified Chinese toy grammar, over the same English as :mod:`.en_fr`.

The English side (sampler, parser, lexicon, held-out combinations, test bucket) is exactly
en-fr's, so the two tasks differ only in the target language and the app can compare how one
architecture handles agreement-heavy French and reordering-heavy Chinese. The Chinese side is
character-level: every target token is one CJK character, and each character of a word inherits
that word's alignment. ``tgt_joiner`` is ``""``.

Chinese rules (one output per input, so a small model can learn them exactly; written as a Chinese teacher
would write the sentence, see ``tests/core/test_grammar_zh.py``):

* no articles: "the" is left unaligned on the source side; a → 一 + measure word, two..five →
  两/三/四/五 + measure word, some → 一些; the measure word is fixed per noun (只 本 个 张 辆 条 把 …)
  and is aligned, like the numeral, to the English determiner; in a negated clause "a" and "some" take no
  一 + measure word / 一些 (他没有猫, 不跟鸽子说话, 猫不在桌子上);
* one-syllable adjectives sit right before the noun (小狗, 黑猫, 大房子); longer ones take 的, aligned
  to nothing, and come first (开心的小猫, 漂亮的黑猫); before a noun that begins with 老, "old" and "long"
  take 的 (年老的老师, 长长的老虎, never 老老师 or 长老虎);
* possessives are pronoun + 的 (my → 我的, both aligned to "my"), without 的 before a family word
  (我妈妈) or before a 的-adjective (我漂亮的猫: one 的 is enough); "X of Y" → Y 的 X, with that 的 aligned
  to "of" (the house of the dog → 狗的房子);
* adverbial phrases move before the verb, as locative frames: on the table → 在桌子上,
  in the house → 在房子里, under → 在…下面, near → 在…附近, behind → 在…后面 (在 and the
  postposition both aligned to the English preposition), with the place word Chinese uses for the noun
  (在床上, 在船上, 在花园里, 在公园里); with X → 跟X一起; for X → 给X;
* negation: 不 before the verb phrase (不在床上睡觉), but 没 for a resultative verb (没看见, 没找到)
  and for 有 (没有); "cannot" + a resultative verb is the potential form (看不见, 找不到), otherwise 不能;
  an affirmative resultative verb takes 了 (看见了); "do/does" stay unaligned;
* "to be": 很 + adjective (猫很小; 非常小, 不小, 不太小), 是…的 for colours and states (猫是黑色的,
  瓶子是空的; "very brown / grey" → 是深棕色的 / 是深灰色的, since 非常棕 is not said), 了 for a change of
  state (车坏了, 猫病了; 没病), 在 + place (猫在桌子上);
* questions end in 吗 (你看见猫了吗？, 猫开心吗？), aligned to do/does/is/can;
* motion verbs: come to X → 来X, run to X → 跑去X, return to X → 回到X (去/到 aligned to "to"; 不跑去X, but 不回X);
  speak to X → 跟X说话 (跟 aligned to "to"); eat/drink/read/draw/cook without an object take their usual
  one (吃东西, 看书, 做饭);
* 和 joins noun phrases, a comma joins clauses (，但是 for "but"); . , ! ? → 。，！？; pronouns are
  我 你 他 她 我们 他们 in every role.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from . import en_fr
from .corpus import Example, Split
from .en_fr import NP, Clause, Coord, Pronoun, Sentence

SOURCE_LEXICON: frozenset[str] = en_fr.SOURCE_LEXICON
"""The English words en-zh uses: the same lexicon as en-fr."""

# noun → (Chinese word, classifier); mass nouns have no classifier since they never take a/numbers.
NOUNS_ZH: dict[str, tuple[str, str | None]] = {
    "boy": ("男孩", "个"), "girl": ("女孩", "个"), "woman": ("女人", "个"), "king": ("国王", "个"),
    "queen": ("王后", "个"), "doctor": ("医生", "个"), "teacher": ("老师", "个"), "baker": ("面包师", "个"),
    "farmer": ("农民", "个"), "soldier": ("士兵", "个"), "neighbor": ("邻居", "个"), "sister": ("姐姐", "个"),
    "brother": ("哥哥", "个"), "mother": ("妈妈", "个"), "father": ("爸爸", "个"), "lady": ("女士", "位"),
    "cat": ("猫", "只"), "dog": ("狗", "条"), "horse": ("马", "匹"), "cow": ("牛", "头"), "mouse": ("老鼠", "只"),
    "pigeon": ("鸽子", "只"), "rabbit": ("兔子", "只"), "goat": ("山羊", "只"), "duck": ("鸭子", "只"),
    "snake": ("蛇", "条"), "wolf": ("狼", "只"), "frog": ("青蛙", "只"), "hen": ("母鸡", "只"), "pig": ("猪", "头"),
    "tiger": ("老虎", "只"), "lion": ("狮子", "头"), "monkey": ("猴子", "只"),
    "table": ("桌子", "张"), "chair": ("椅子", "把"), "bed": ("床", "张"), "car": ("汽车", "辆"),
    "bicycle": ("自行车", "辆"), "boat": ("船", "艘"), "train": ("火车", "列"), "hat": ("帽子", "顶"),
    "shirt": ("衬衫", "件"), "dress": ("裙子", "条"), "shoe": ("鞋", "只"), "key": ("钥匙", "把"), "knife": ("刀", "把"),
    "pen": ("笔", "支"), "cup": ("杯子", "个"), "bottle": ("瓶子", "个"), "box": ("盒子", "个"), "ball": ("球", "个"),
    "door": ("门", "扇"), "window": ("窗户", "扇"), "painting": ("画", "幅"), "photo": ("照片", "张"),
    "flower": ("花", "朵"), "wall": ("墙", "面"), "book": ("书", "本"), "letter": ("信", "封"),
    "newspaper": ("报纸", "份"), "map": ("地图", "张"),
    "house": ("房子", "座"), "garden": ("花园", "个"), "river": ("河", "条"), "road": ("路", "条"),
    "bridge": ("桥", "座"), "city": ("城市", "座"), "village": ("村子", "个"), "market": ("市场", "个"),
    "park": ("公园", "个"), "shop": ("商店", "家"), "kitchen": ("厨房", "个"), "room": ("房间", "个"),
    "forest": ("森林", "片"), "mountain": ("山", "座"), "beach": ("海滩", "片"), "field": ("田野", "片"),
    "tower": ("塔", "座"), "castle": ("城堡", "座"), "station": ("车站", "个"), "bank": ("银行", "家"),
    "apple": ("苹果", "个"), "cake": ("蛋糕", "块"), "sandwich": ("三明治", "个"), "pear": ("梨", "个"),
    "banana": ("香蕉", "根"), "cookie": ("饼干", "块"), "carrot": ("胡萝卜", "根"), "tomato": ("西红柿", "个"),
    "cheese": ("奶酪", None), "soup": ("汤", None), "coffee": ("咖啡", None), "tea": ("茶", None),
    "milk": ("牛奶", None), "juice": ("果汁", None), "wine": ("葡萄酒", None), "beer": ("啤酒", None),
}

#: English adjective → (the form before a noun, whether 的 follows it, the form after "to be", how "to be" says it).
#: One-syllable adjectives sit right before the noun (小狗 黑猫 大房子 破杯子); the others take 的 (漂亮的猫),
#: and a noun with both puts the 的-phrase first (开心的小猫). After "to be": "plain" adjectives take 很
#: (猫很小; 不小, 非常小, 不太小), colours and states take 是…的 (猫是黑色的, 瓶子是空的), and a change of
#: state takes 了 (猫病了, 车坏了; 没病; 病得很厉害).
_ADJECTIVE_TABLE_ZH = """
small 小 - 小 plain
big 大 - 大 plain
beautiful 漂亮 的 漂亮 plain
young 年轻 的 年轻 plain
old 老 - 老 plain
good 好 - 好 plain
bad 坏 - 坏 plain
pretty 好看 的 好看 plain
fat 胖 - 胖 plain
new 新 - 新 plain
long 长 - 长 plain
black 黑 - 黑色 colour
white 白 - 白色 colour
red 红 - 红色 colour
green 绿色 的 绿色 colour
blue 蓝 - 蓝色 colour
yellow 黄 - 黄色 colour
grey 灰 - 灰色 colour
brown 棕色 的 棕色 colour
happy 开心 的 开心 plain
sad 难过 的 难过 plain
tired 疲倦 的 累 plain
angry 生气 的 生气 plain
hot 热 - 热 plain
cold 冷 - 冷 plain
clean 干净 的 干净 plain
dirty 脏 - 脏 plain
empty 空 - 空 state
full 满满 的 满 state
heavy 重 - 重 plain
round 圆 - 圆 plain
strong 强壮 的 强壮 plain
quiet 安静 的 安静 plain
famous 有名 的 出名 plain
sick 生病 的 病 change
rich 有钱 的 富有 plain
broken 破 - 坏 change
lazy 懒 - 懒 plain
funny 有趣 的 好笑 plain
cute 可爱 的 可爱 plain
wet 湿 - 湿 plain
dry 干 - 干 plain
"""


@dataclass(frozen=True)
class AdjectiveZh:
    attributive: str  # before a noun
    de: bool  # 的 between it and the noun
    predicative: str  # after "to be"
    kind: str  # plain | colour | state | change


ADJECTIVES_ZH: dict[str, AdjectiveZh] = {
    en: AdjectiveZh(attr, de == "的", pred, kind)
    for en, attr, de, pred, kind in (line.split() for line in _ADJECTIVE_TABLE_ZH.strip().splitlines())
}

VERBS_ZH: dict[str, str] = {
    "see": "看见", "watch": "看", "find": "找到", "want": "想要", "draw": "画", "know": "认识", "choose": "选",
    "touch": "摸", "push": "推", "pull": "拉", "wash": "洗", "carry": "带", "hide": "藏", "take": "拿",
    "keep": "留着", "throw": "扔", "sell": "卖", "make": "做", "break": "打破", "fix": "修", "close": "关",
    "cook": "做", "eat": "吃", "drink": "喝", "read": "读", "build": "建", "visit": "参观", "meet": "遇到",
    "bite": "咬", "wake": "叫醒", "feed": "喂", "follow": "跟着", "chase": "追", "sleep": "睡觉", "sing": "唱歌",
    "dance": "跳舞", "swim": "游泳", "play": "玩", "work": "工作", "laugh": "笑", "cry": "哭", "jump": "跳",
    "walk": "散步", "come": "来", "run": "跑", "return": "回", "speak": "说话", "like": "喜欢", "have": "有",
}
#: a verb whose object English leaves out takes its usual one, as Chinese needs (狗在吃 → 狗吃东西; 她看书)
NO_OBJECT_ZH: dict[str, str] = {"eat": "吃东西", "drink": "喝东西", "read": "看书", "draw": "画画", "cook": "做饭"}
#: resultative verbs (verb + result): 看见 is negated 没看见 (did not) or 看不见 (cannot), never 不看见, and an
#: affirmative statement takes 了 (看见了); the number is where the result begins (看|见)
RESULTATIVE: dict[str, int] = {"see": 1, "find": 1, "meet": 1, "break": 1, "wake": 1}
#: motion verbs: the word after the verb that "to" becomes (跑去公园, 回到村子; 来 takes the place directly)
MOTION_TO: dict[str, str] = {"come": "", "run": "去", "return": "到"}
#: family words take a pronoun without 的 (我妈妈), as Chinese speakers say them
KIN: frozenset[str] = frozenset({"mother", "father", "brother", "sister"})
#: adjectives that would fuse with a noun beginning with 老 into another word or a stammer (老老师, 老老鼠; 长老虎
#: reads 长老 "elder"): before such a noun they take 的 in a longer form (年老的老师, 长长的老虎)
BEFORE_LAO: dict[str, str] = {"old": "年老", "long": "长长"}
#: where the place word after the noun is not the preposition's usual one: one lies 在床上 (not 床里) and walks
#: 在花园里 (not 花园上); the rest keep 在…里 for "in" and 在…上 for "on"
PLACE_WORD: dict[tuple[str, str], str] = {
    **{("in", noun): "上" for noun in ("bed", "boat", "train", "road", "newspaper", "beach", "map", "chair",
                                         "bicycle", "bridge")},
    **{("on", noun): "里" for noun in ("garden", "park", "forest", "city", "village", "kitchen", "room", "shop",
                                         "bank", "station")},
}
#: colours with no one-character adjective for "very" (非常棕 and 非常灰 are not said): "very" makes them dark
DARK_FOR_VERY: frozenset[str] = frozenset({"brown", "grey"})

PRONOUNS_ZH: dict[str, str] = {
    "i": "我", "me": "我", "you": "你", "he": "他", "him": "他", "she": "她", "her": "她",
    "we": "我们", "us": "我们", "they": "他们", "them": "他们",
}
_POSS_ZH = {"my": "我的", "your": "你的", "his": "他的", "her": "她的", "our": "我们的", "their": "他们的"}
_NUM_ZH = {"a": "一", "two": "两", "three": "三", "four": "四", "five": "五"}
# preposition → (word before the NP, word after it)
_FRAMES_ZH = {"in": ("在", "里"), "on": ("在", "上"), "under": ("在", "下面"), "near": ("在", "附近"),
              "behind": ("在", "后面"), "with": ("跟", "一起"), "for": ("给", "")}

Token = tuple[str, tuple[int, ...], bool]  # character, alignment, whether it begins its word


def _chars(word: str, links: tuple[int, ...]) -> list[Token]:
    """One token per character, all sharing the word's alignment; the first one begins the word."""
    return [(ch, links, i == 0) for i, ch in enumerate(word)]


def _adjective(english: str, word: str) -> AdjectiveZh:
    """The adjective as it stands before ``word``: 年老的 / 长长的 before a noun that begins with 老."""
    adj = ADJECTIVES_ZH[english]
    if word.startswith("老") and english in BEFORE_LAO:
        return AdjectiveZh(BEFORE_LAO[english], True, adj.predicative, adj.kind)
    return adj


def _zh_np(np: NP, negated: bool = False) -> list[Token]:
    """Y的 (of), the numeral + measure word / 一些 / possessive, the 的-adjectives, the bare ones, the noun.

    ``negated``: an NP inside a negated clause (its object, or the place or company of the verb), where "a"
    and "some" take no 一 + measure word / 一些 (他没有猫, 不跟鸽子说话, 猫不在桌子上)."""
    out: list[Token] = []
    if np.of is not None:
        out += _zh_np(np.of) + _chars("的", (np.of_i,))
    word, classifier = NOUNS_ZH[np.noun]
    named = [(a, i) for a, i in ((np.pre, np.pre_i), (np.post, np.post_i)) if a is not None]
    adjectives = [(_adjective(a, word), i) for a, i in named]
    if negated and np.det in ("a", "some"):
        pass
    elif np.det in _NUM_ZH:
        out += _chars(_NUM_ZH[np.det] + (classifier or ""), (np.det_i,))
    elif np.det == "some":
        out += _chars("一些", (np.det_i,))
    elif np.det in _POSS_ZH:
        owner = _POSS_ZH[np.det]
        # 我妈妈 (family), 我漂亮的猫 (one 的 is enough before a 的-adjective), otherwise 我的猫
        bare = (np.noun in KIN and not adjectives) or any(adj.de for adj, _ in adjectives)
        out += _chars(owner[:-1] if bare else owner, (np.det_i,))
    for adj, i in adjectives:
        if adj.de:
            out += _chars(adj.attributive, (i,)) + _chars("的", ())
    for adj, i in adjectives:
        if not adj.de:
            out += _chars(adj.attributive, (i,))
    return out + _chars(word, (np.noun_i,))


def _zh_part(part: Pronoun | NP | Coord, negated: bool = False) -> list[Token]:
    if isinstance(part, Pronoun):
        return _chars(PRONOUNS_ZH[part.word], (part.i,))
    if isinstance(part, Coord):
        return _zh_np(part.left, negated) + _chars("和", (part.and_i,)) + _zh_np(part.right, negated)
    return _zh_np(part, negated)


def _zh_frame(pp: en_fr.PP, also: tuple[int, ...] = (), negated: bool = False) -> list[Token]:
    """在桌子上, 在床上, 在花园里, 跟狗一起, 给妈妈: a place or company before the verb; ``also`` aligns 在 to
    "is" as well."""
    before, after = _FRAMES_ZH[pp.prep]
    after = PLACE_WORD.get((pp.prep, pp.obj.noun), after)
    link = (pp.prep_i,)
    return _chars(before, (*also, *link)) + _zh_np(pp.obj, negated) + _chars(after, link)


def _zh_be(clause: Clause, question: bool) -> list[Token]:
    """"to be": 猫很小 / 猫是黑色的 / 车坏了 / 猫在桌子上, with 不/没, 非常/太 and the question's 吗 after."""
    out = _zh_part(clause.subj)
    is_, not_, very = (clause.verb_i,), (clause.not_i,), (clause.very_i,)
    if clause.adv is not None:  # a place: 在 is the verb
        return out + (_chars("不", not_) if clause.neg else []) + _zh_frame(clause.adv, is_, clause.neg)
    adj = ADJECTIVES_ZH[clause.pred or ""]
    pred = adj.predicative
    if adj.kind == "change":  # 病了 / 没病 / 病得很厉害 / 病得不厉害
        if clause.very:
            degree = "得不厉害" if clause.neg else "得很厉害"
            return out + _chars(pred, (clause.pred_i,)) + [(ch, very if ch != "不" else not_, k == 0)
                                                            for k, ch in enumerate(degree)]
        if clause.neg:
            return out + _chars("没", not_) + _chars(pred, (clause.pred_i,))
        return out + _chars(pred, (clause.pred_i,)) + _chars("了", is_)
    if clause.very and clause.pred in DARK_FOR_VERY:  # 是深棕色的 / 不是深灰色的
        return out + (_chars("不", not_) if clause.neg else []) + _chars("是", is_) + _chars("深", very) \
            + _chars(pred, (clause.pred_i,)) + _chars("的", is_)
    if clause.very:  # 非常小 / 不太小 (a colour by its one character: 非常黑)
        word = pred[0] if adj.kind == "colour" else pred
        degree = _chars("不", not_) + _chars("太", very) if clause.neg else _chars("非常", very)
        return out + degree + _chars(word, (clause.pred_i,))
    if adj.kind == "plain":  # 很小 / 不小 / (question) 小吗
        lead = _chars("不", not_) if clause.neg else [] if question else _chars("很", is_)
        return out + lead + _chars(pred, (clause.pred_i,))
    # colours and states: 是黑色的 / 不是黑色的
    return out + (_chars("不", not_) if clause.neg else []) + _chars("是", is_) + _chars(pred, (clause.pred_i,)) \
        + _chars("的", is_)


def _zh_clause(clause: Clause, question: bool) -> list[Token]:
    if clause.verb == en_fr.BE:
        return _zh_be(clause, question)
    out = _zh_part(clause.subj)
    verb = clause.verb
    not_ = (clause.not_i,)
    split = RESULTATIVE.get(verb)
    potential = clause.modal and clause.neg and split is not None  # 看不见: cannot see
    if clause.modal and not potential:
        out += (_chars("不", not_) if clause.neg else []) + _chars("能", (clause.modal_i,))
    elif clause.neg and not clause.modal:
        out += _chars("没" if split is not None or verb == "have" else "不", not_)
    if clause.adv is not None:
        out += _zh_frame(clause.adv, negated=clause.neg)
    word = VERBS_ZH[verb] if clause.obj is not None or verb not in NO_OBJECT_ZH else NO_OBJECT_ZH[verb]
    link = (clause.verb_i,)
    if potential:
        verb_tokens = _chars(word[:split], link) + _chars("不", not_) + _chars(word[split:], link)
    else:
        verb_tokens = _chars(word, link)
        if split is not None and not clause.neg and not clause.modal and not question:
            verb_tokens += _chars("了", ())  # a completed result: 看见了
    kind = en_fr.VERBS[verb].kind
    if kind == "speak" and clause.comp is not None:
        return out + _chars("跟", (clause.comp.prep_i,)) + _zh_np(clause.comp.obj, clause.neg) + verb_tokens
    if kind == "motion" and clause.comp is not None:
        to = "" if clause.neg and verb == "return" else MOTION_TO[verb]  # 不回村子, but 不跑去公园
        return out + verb_tokens + (_chars(to, (clause.comp.prep_i,)) if to else []) \
            + _zh_np(clause.comp.obj, clause.neg)
    out += verb_tokens
    if clause.obj is not None:
        out += _zh_part(clause.obj, negated=clause.neg)
    return out


_END_ZH = {".": "。", "!": "！", "?": "？"}


def _question_head(clause: Clause) -> int:
    return clause.aux_i if clause.aux_i >= 0 else clause.modal_i if clause.modal else clause.verb_i


def _tokens(sentence: Sentence) -> list[Token]:
    out: list[Token] = []
    for k, clause in enumerate(sentence.clauses):
        if k:  # clauses are joined by a comma (and), or a comma and 但是 (but)
            comma = (sentence.comma_i[k - 1],) if sentence.comma(k) else ()
            if sentence.joiner(k) == "but":
                out += _chars("，", comma) + _chars("但是", (sentence.and_i[k - 1],))
            else:
                out += _chars("，", (*comma, sentence.and_i[k - 1]))
        out += _zh_clause(clause, sentence.question)
    if sentence.question:
        first = sentence.clauses[0]
        head = (_question_head(first),)
        if first.verb in RESULTATIVE and not first.modal:
            out += _chars("了", ())  # 你看见猫了吗
        out += _chars("吗", head)
    if sentence.end is not None:
        out += _chars(_END_ZH[sentence.end], (sentence.end_i,))
    return out


def realise(sentence: Sentence) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """Chinese characters and their alignment for a parsed sentence."""
    out = _tokens(sentence)
    return tuple(t for t, _, _ in out), tuple(a for _, a, _ in out)


def translate(tokens: Sequence[str] | str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The one Chinese translation (as characters) of an English sentence of the grammar, with alignment.

    Raises :class:`.en_fr.GrammarError` for English the grammar does not produce.
    """
    return realise(en_fr.parse(tokens))


def draw(task: str, rng: random.Random, split: Split) -> Example | None:
    """One en-zh example for :func:`.corpus.generate` (None when the sample falls in the other split)."""
    drawn = en_fr.draw_source(rng, split)
    if drawn is None:
        return None
    tokens, sentence = drawn
    out = _tokens(sentence)
    return Example(tokens, tuple(t for t, _, _ in out), tuple(a for _, a, _ in out), tgt_joiner="",
                   word_start=tuple(w for _, _, w in out))
