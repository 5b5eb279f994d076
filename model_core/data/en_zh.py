"""English → Simplified Chinese toy grammar, over the same English as :mod:`.en_fr`.

The English side (sampler, parser, lexicon, held-out combinations, test bucket) is exactly
en-fr's, so the two tasks differ only in the target language and the app can compare how one
architecture handles agreement-heavy French and reordering-heavy Chinese. The Chinese side is
character-level: every target token is one CJK character, and each character of a word inherits
that word's alignment. ``tgt_joiner`` is ``""``.

Chinese rules (one output per input, so a small model can learn them exactly):

* no articles: "the" is left unaligned on the source side; a → 一 + classifier, two..five →
  两/三/四/五 + classifier, some → 一些; the classifier is fixed per noun (只 本 个 张 辆 条 把 …)
  and is aligned, like the numeral, to the English determiner;
* every adjective is followed by 的 (小的黑色的猫): one regular rule instead of Chinese's
  lexical choice between 黑猫 and 黑色的猫; this 的 is aligned to nothing, ``()``;
* possessives are pronoun + 的 (my → 我的, both aligned to "my"); "X of Y" → Y 的 X, with that
  的 aligned to "of" (the house of the dog → 狗的房子);
* adverbial phrases move before the verb, as locative frames: on the table → 在桌子上,
  in the house → 在房子里, under → 在…下, near → 在…附近, behind → 在…后面 (在 and the
  postposition both aligned to the English preposition); with X → 跟X一起; for X → 给X;
* negation is 不 before the verb phrase (不在床上睡觉), aligned to "not"; "do/does" stay
  unaligned since Chinese verbs carry no person or number;
* motion verbs take 到: come/run/return to X → 来到/跑到/回到 X (到 aligned to "to");
  speak to X → 跟X说话 (跟 aligned to "to");
* 和 joins noun phrases, 并且 joins clauses; pronouns are 我 你 他 她 我们 他们 in every role.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import en_fr
from .corpus import Example, Split
from .en_fr import NP, Clause, Coord, Pronoun, Sentence

SOURCE_LEXICON: frozenset[str] = en_fr.BASE_SOURCE_LEXICON
"""The English words en-zh uses: en-fr's original grammar (not yet its punctuation, questions, "to be", "can")."""

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

ADJECTIVES_ZH: dict[str, str] = {
    "small": "小", "big": "大", "beautiful": "漂亮", "young": "年轻", "old": "老", "good": "好", "bad": "坏",
    "pretty": "好看", "fat": "胖", "new": "新", "long": "长", "black": "黑色", "white": "白色", "red": "红色",
    "green": "绿色", "blue": "蓝色", "yellow": "黄色", "grey": "灰色", "brown": "棕色", "happy": "快乐",
    "sad": "难过", "tired": "疲倦", "angry": "生气", "hot": "热", "cold": "冷", "clean": "干净", "dirty": "脏",
    "empty": "空", "full": "满", "heavy": "重", "round": "圆", "strong": "强壮", "quiet": "安静", "famous": "有名",
    "sick": "生病", "rich": "富有", "broken": "破", "lazy": "懒", "funny": "有趣", "cute": "可爱", "wet": "湿",
    "dry": "干",
}

VERBS_ZH: dict[str, str] = {
    "see": "看见", "watch": "看", "find": "找到", "want": "想要", "draw": "画", "know": "认识", "choose": "选",
    "touch": "摸", "push": "推", "pull": "拉", "wash": "洗", "carry": "带", "hide": "藏", "take": "拿",
    "keep": "留", "throw": "扔", "sell": "卖", "make": "做", "break": "打破", "fix": "修理", "close": "关",
    "cook": "煮", "eat": "吃", "drink": "喝", "read": "读", "build": "建造", "visit": "参观", "meet": "遇见",
    "bite": "咬", "wake": "叫醒", "feed": "喂", "follow": "跟着", "chase": "追", "sleep": "睡觉", "sing": "唱歌",
    "dance": "跳舞", "swim": "游泳", "play": "玩", "work": "工作", "laugh": "笑", "cry": "哭", "jump": "跳",
    "walk": "散步", "come": "来", "run": "跑", "return": "回", "speak": "说话", "like": "喜欢", "have": "有",
}

PRONOUNS_ZH: dict[str, str] = {
    "i": "我", "me": "我", "you": "你", "he": "他", "him": "他", "she": "她", "her": "她",
    "we": "我们", "us": "我们", "they": "他们", "them": "他们",
}
_POSS_ZH = {"my": "我的", "your": "你的", "his": "他的", "her": "她的", "our": "我们的", "their": "他们的"}
_NUM_ZH = {"a": "一", "two": "两", "three": "三", "four": "四", "five": "五"}
# preposition → (word before the NP, word after it)
_FRAMES_ZH = {"in": ("在", "里"), "on": ("在", "上"), "under": ("在", "下"), "near": ("在", "附近"),
              "behind": ("在", "后面"), "with": ("跟", "一起"), "for": ("给", "")}

Token = tuple[str, tuple[int, ...], bool]  # character, alignment, whether it begins its word


def _chars(word: str, links: tuple[int, ...]) -> list[Token]:
    """One token per character, all sharing the word's alignment; the first one begins the word."""
    return [(ch, links, i == 0) for i, ch in enumerate(word)]


def _zh_np(np: NP) -> list[Token]:
    out: list[Token] = []
    if np.of is not None:
        out += _zh_np(np.of) + _chars("的", (np.of_i,))
    word, classifier = NOUNS_ZH[np.noun]
    if np.det in _NUM_ZH:
        out += _chars(_NUM_ZH[np.det] + (classifier or ""), (np.det_i,))
    elif np.det == "some":
        out += _chars("一些", (np.det_i,))
    elif np.det in _POSS_ZH:
        out += _chars(_POSS_ZH[np.det], (np.det_i,))
    for adj, adj_i in ((np.pre, np.pre_i), (np.post, np.post_i)):
        if adj is not None:
            out += _chars(ADJECTIVES_ZH[adj], (adj_i,)) + _chars("的", ())
    return out + _chars(word, (np.noun_i,))


def _zh_part(part: Pronoun | NP | Coord) -> list[Token]:
    if isinstance(part, Pronoun):
        return _chars(PRONOUNS_ZH[part.word], (part.i,))
    if isinstance(part, Coord):
        return _zh_np(part.left) + _chars("和", (part.and_i,)) + _zh_np(part.right)
    return _zh_np(part)


def _zh_clause(clause: Clause) -> list[Token]:
    out = _zh_part(clause.subj)
    if clause.neg:
        out += _chars("不", (clause.not_i,))
    if clause.adv is not None:
        before, after = _FRAMES_ZH[clause.adv.prep]
        link = (clause.adv.prep_i,)
        out += _chars(before, link) + _zh_np(clause.adv.obj) + _chars(after, link)
    verb = _chars(VERBS_ZH[clause.verb], (clause.verb_i,))
    kind = en_fr.VERBS[clause.verb].kind
    if kind == "speak" and clause.comp is not None:
        out += _chars("跟", (clause.comp.prep_i,)) + _zh_np(clause.comp.obj) + verb
    elif kind == "motion" and clause.comp is not None:
        out += verb + _chars("到", (clause.comp.prep_i,)) + _zh_np(clause.comp.obj)
    else:
        out += verb
        if clause.obj is not None:
            out += _zh_part(clause.obj)
    return out


def _tokens(sentence: Sentence) -> list[Token]:
    out: list[Token] = []
    for k, clause in enumerate(sentence.clauses):
        if k:
            out += _chars("并且", (sentence.and_i[k - 1],))
        out += _zh_clause(clause)
    return out


def realise(sentence: Sentence) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """Chinese characters and their alignment for a parsed sentence."""
    out = _tokens(sentence)
    return tuple(t for t, _, _ in out), tuple(a for _, a, _ in out)


def translate(tokens: Sequence[str] | str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The one Chinese translation (as characters) of an English sentence of the grammar, with alignment.

    Raises :class:`.en_fr.GrammarError` for English the grammar does not produce.
    """
    sentence = en_fr.parse(tokens)
    if en_fr.is_extended(sentence):
        raise en_fr.GrammarError("not in the en-zh grammar: punctuation, questions, 'to be', 'can', like and have "
                                 "are en-fr's for now")
    return realise(sentence)


def draw(task: str, rng: random.Random, split: Split) -> Example | None:
    """One en-zh example for :func:`.corpus.generate` (None when the sample falls in the other split)."""
    drawn = en_fr.draw_source(rng, split)
    if drawn is None:
        return None
    tokens, sentence = drawn
    out = _tokens(sentence)
    return Example(tokens, tuple(t for t, _, _ in out), tuple(a for _, a, _ in out), tgt_joiner="",
                   word_start=tuple(w for _, _, w in out))
