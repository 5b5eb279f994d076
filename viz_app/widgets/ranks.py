"""How a typed (teacher-forced) token's rank reads: one colour scale and one wording for every panel.

Why one module: the rank badges under the target chips and the highlighted bar of the next-token
panel must agree, and the scale must read right in front of a class: rank 1 means the model agrees
with the typed word, so it is green, never the alarming red a "typed" colour used to be; the colour
warms as the model's preference for the word drops.
"""

from __future__ import annotations

from viz_app.i18n import tr

#: (highest rank in the band, background, text colour): green = the model's own choice, amber = among its
#: first few, orange = plausible, red = far from what it expected. Text colours keep 4.5:1 contrast.
RANK_BANDS: tuple[tuple[int, str, str], ...] = (
    (1, "#2e7d32", "#ffffff"),
    (3, "#f9a825", "#212121"),
    (10, "#ef6c00", "#ffffff"),
)
FAR_RANK = ("#c62828", "#ffffff")
#: a row that predicts nothing (padding) or whose rank is unknown
NO_RANK = ("#757575", "#ffffff")


def rank_colours(rank: int) -> tuple[str, str]:
    """(background, text) for a rank; 0 or less means no rank."""
    if rank <= 0:
        return NO_RANK
    for top, background, text in RANK_BANDS:
        if rank <= top:
            return background, text
    return FAR_RANK


def rank_colour(rank: int) -> str:
    """The background colour of a rank (the next-token panel's highlighted bar)."""
    return rank_colours(rank)[0]


def rank_badge(rank: int) -> str:
    """The short text of a badge ("#3"); empty without a rank."""
    return tr("Ranks", "#{rank}").format(rank=rank) if rank > 0 else ""


def rank_tooltip(token: str, rank: int, total: int) -> str:
    """One sentence saying what the rank means for a typed token."""
    if rank <= 0:
        return tr("Ranks", "{token}: no prediction at this position").format(token=token)
    if rank == 1:
        return tr("Ranks", "{token}: rank 1 of {total}: the model's own first choice").format(token=token, total=f"{total:,}")
    return tr("Ranks", "{token}: rank {rank} of {total}: the model preferred {better} other tokens").format(
        token=token, rank=rank, total=f"{total:,}", better=rank - 1)
