"""The "Explain" texts: what each panel shows, written for a student, in the UI language.

Why here and not in the widgets: the texts are teaching material, reviewed as a whole for
correctness and consistency of notation (Q, K, V, d_k, the mask convention True = may attend),
and translated together. Each text is short HTML; the window shows it in a non-modal box.
"""

from __future__ import annotations

from model_core.interpret.registry import ANALYSES
from viz_app.i18n import N_, analysis_text, tr_marked

#: panel key -> (title, HTML body), both marked for translation
EXPLANATIONS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "attention": (
        N_("Explain", "Attention: what the heatmap shows"),
        N_("Explain", """<p>Every token is turned into three vectors by learned matrices: a <b>query</b>
q = x·W<sub>Q</sub> (what this token is looking for), a <b>key</b> k = x·W<sub>K</sub> (what it offers to be
found by) and a <b>value</b> v = x·W<sub>V</sub> (what it passes on).</p>
<p>The weights are the <b>scaled dot product</b>:</p>
<p align="center"><b>A = softmax( Q·K<sup>T</sup> / √d<sub>k</sub> + M )</b>, &nbsp; output = A·V</p>
<p>Each <b>row</b> of the heatmap is one query token, each <b>column</b> one key token; a cell is how much
that query reads from that key. Every row sums to 1 (softmax), so a row is a distribution over the keys.
M is 0 where attention is allowed and −∞ where a mask blocks it, so blocked cells become exactly 0.</p>
<p><b>Why divide by √d<sub>k</sub>?</b> With d<sub>k</sub>-dimensional q and k whose components have
variance 1, q·k has variance d<sub>k</sub>. Large scores push the softmax into a nearly one-hot regime
where its gradients vanish; dividing by √d<sub>k</sub> brings the variance back to 1.</p>
<p>The three kinds: <b>encoder self-attention</b> (source tokens read each other, all directions);
<b>decoder self-attention</b> (target tokens read earlier target tokens only: the causal mask);
<b>cross-attention</b> (each target position reads the encoder's output for every source token —
this is where a translation model looks up which source word it is translating).</p>
<p><b>Teacher forcing vs generation.</b> With a typed target, the decoder is fed the correct previous
tokens (as in training) and you see what it predicts at each position. With the target empty, the
model generates: each step feeds back its own choice. At step t the decoder has computed t positions;
rows below are not computed yet.</p>"""),
    ),
    "masks": (
        N_("Explain", "Masks: which cells are blocked, and why"),
        N_("Explain", """<p>A mask says, for each query and key, whether attention is allowed
(here: <b>True = may attend</b>). Blocked scores are set to −∞ before the softmax, so their weight is exactly 0.</p>
<ul>
<li><b>Source padding</b>: sentences in a batch are padded with <tt>&lt;pad&gt;</tt> to the same length.
Pad tokens carry no meaning, so no query may read them (their columns are blocked) and their own rows
are ignored.</li>
<li><b>Target padding</b>: the same for the decoder's input.</li>
<li><b>Causal (look-ahead) mask</b>: in decoder self-attention, position t may read positions 0…t only.
During training the whole target is fed at once; without this mask the model could copy the answer
from the future. It makes training match generation, where the future does not exist yet.</li>
<li><b>Combined</b>: the logical AND of the masks that apply to this kind of attention — what the model
actually used.</li>
</ul>
<p>A single sentence has no padding of its own: use “pad source / target to N” to add
<tt>&lt;pad&gt;</tt> tokens and see the padding masks at work.</p>"""),
    ),
    "heads": (
        N_("Explain", "Multi-head attention: all heads at once"),
        N_("Explain", """<p>A model with h heads splits d<sub>model</sub> into h smaller subspaces of
d<sub>k</sub> = d<sub>model</sub>/h dimensions. Each head has its own W<sub>Q</sub>, W<sub>K</sub>, W<sub>V</sub>
and computes its own attention map; the h outputs are concatenated and mixed by W<sub>O</sub>.</p>
<p><b>What multi-head buys:</b> one softmax can only form one weighted average per query. Several heads
can attend to different things at the same time — one to the previous token, one to the aligned source
word, one to the end of the sentence — at about the cost of a single full-size head.</p>
<p>The overview shows every layer (rows) × head (columns) for the selected kind; click a tile to open
it. Lower layers often attend to neighbours; higher layers to the aligned word.</p>
<p><b>Grouped-query (GQA) and multi-query (MQA) attention</b> keep one query per head but share keys and
values: with g groups, heads in the same group read the same K and V (g = 1 is multi-query). The
maps still differ per head because the queries differ, but the key/value cache is h/g times smaller,
which makes generation faster and lighter on memory.</p>"""),
    ),
    "positional": (
        N_("Explain", "Positional encoding: how order gets in"),
        N_("Explain", """<p>Attention itself ignores order: shuffle the tokens and every weight moves along
with them. So a position vector is added to each token embedding.</p>
<p><b>Sinusoidal encoding</b> (the original Transformer):</p>
<p align="center">PE(pos, 2i) = sin(pos / 10000<sup>2i/d</sup>), &nbsp; PE(pos, 2i+1) = cos(pos / 10000<sup>2i/d</sup>)</p>
<p>Each pair of dimensions is a point turning on a circle at its own frequency: fast in the first
dimensions, very slow in the last ones, like the hands of a clock. Together they give every position
a unique pattern.</p>
<p><b>Relative offsets:</b> moving k positions rotates every pair by a fixed angle, so PE(pos + k) is a
linear function of PE(pos) that depends only on k. That is why the similarity PE·PE<sup>T</sup> depends
only on the distance between two positions (bright diagonal band) — the model can learn to attend
“one word back” wherever it is.</p>
<p><b>Learned</b> tables are trained like embeddings (they cannot go beyond the trained length).
A <b>relative bias</b> (as in T5) instead adds a learned number per head and distance to the scores.</p>
<p>The marked region is where the current sentence's tokens sit.</p>"""),
    ),
    "next_token": (
        N_("Explain", "Next token: what the model predicts"),
        N_("Explain", """<p>At each position the decoder's last hidden state is projected onto the target
vocabulary (logits) and turned into probabilities with a softmax. The bars show the most probable
next tokens at the current step.</p>
<p><b>Greedy</b> takes the most probable token. <b>Sampling</b> draws from the distribution: the
<b>temperature</b> divides the logits (below 1 sharper, above 1 flatter), <b>top-k</b> keeps the k
most probable tokens, <b>top-p</b> keeps the smallest set whose probability reaches p. <b>Beam search</b>
keeps the w best partial translations (by summed log-probability) and extends each of them.</p>
<p>With a typed target (<b>teacher forcing</b>) the correct token is highlighted with its probability
and rank: you see how sure the model was of the right answer, even where it would have chosen another.</p>"""),
    ),
    "scores": (
        N_("Explain", "Scores: what the softmax saw"),
        N_("Explain", """<p>The scores are the numbers before the softmax:
S = Q·K<sup>T</sup>/√d<sub>k</sub> (+ a position bias, if the model has one). Hatched cells are blocked
by a mask: their score is −∞, and e<sup>−∞</sup> = 0, which is why those weights are exactly zero.</p>
<p>The softmax only cares about differences within a row: adding the same number to a whole row
changes nothing. A score a few units above the others in its row already takes most of the weight.</p>"""),
    ),
    "statistics": (
        N_("Explain", "Head statistics"),
        N_("Explain", """<ul>
<li><b>Entropy</b> of a row, −Σ a·ln a, averaged over the rows: 0 when a head looks at one key, ln(n) when it
spreads evenly over n keys.</li>
<li><b>Max weight</b>: how peaked the rows are on average.</li>
<li><b>Mean distance</b>: how far (in tokens) a head looks from the query on average — small for
“previous word” heads, large for heads that gather the whole sentence.</li>
<li><b>Share on &lt;pad&gt; / &lt;eos&gt; / &lt;bos&gt;</b>: heads with nothing useful to do often park
their attention on a special token.</li>
<li><b>Monotonicity</b> (cross-attention): how close the alignment is to going left to right through the source.</li>
<li><b>Coverage</b> (cross-attention): how much of the source has received attention so far.</li>
</ul>
<p>The colour scale is fixed across steps, so the same brightness means the same value at every step.</p>"""),
    ),
    "training": (
        N_("Explain", "Training: watching attention appear"),
        N_("Explain", """<p>The model starts from random weights, so its attention is noise. Training shows it
sentence pairs with <b>teacher forcing</b>: the decoder gets the correct previous target tokens and
is penalised (cross-entropy) for the probability it gives to the correct next token. <b>Label
smoothing</b> moves a little probability to the other tokens, so the model does not become
over-confident.</p>
<p>The learning rate follows the original paper: it rises during a warm-up, then decreases as
1/√step. The validation loss, on sentences never trained on, tells whether the model generalises.</p>
<p>Watch the probe sentence: for <i>copy</i> a diagonal appears in the cross-attention, for
<i>reverse</i> an anti-diagonal, for the translation tasks the word alignment (with the swaps of
adjectives and the one-to-two words of negation).</p>"""),
    ),
}


#: each analysis explains itself (model_core/interpret: its title and text, with their Chinese)
ANALYSIS_EXPLANATIONS = {found.name: found for found in ANALYSES if found.explanation is not None}


def explanation(panel: str) -> tuple[str, str]:
    """(title, HTML) of ``panel`` (a panel of :data:`EXPLANATIONS` or an analysis) in the current UI language."""
    if panel in ANALYSIS_EXPLANATIONS:
        found = ANALYSIS_EXPLANATIONS[panel]
        return analysis_text(found, found.explanation[0]), analysis_text(found, found.explanation[1])
    title, body = EXPLANATIONS[panel]
    return tr_marked(title), tr_marked(body)
