"""Variants as data: one options dataclass, five presets, overrides.

Every point where the rule texts disagree or are silent (listed in
shared/rules/README.md) is a named option here; a preset is just a set of
defaults.  The engine reads only these fields, never the preset name, so a
table can play e.g. Paulista with Mineiro's tie rule by overriding one option
in the ``match`` line (``"options": {"tie_lead": "first"}``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from companion.cards import DECKS, FRENCH, SPANISH, deck_cards


@lru_cache(maxsize=64)
def _deck(deck: str, joker: bool) -> tuple[str, ...]:
    return tuple(deck_cards(deck, joker))


@lru_cache(maxsize=64)
def _deck_set(deck: str, joker: bool) -> frozenset[str]:
    return frozenset(_deck(deck, joker))


def _opt(default: Any, doc: str, choices: tuple[Any, ...] | None = None) -> Any:
    return field(default=default, metadata={"doc": doc, "choices": choices})


@dataclass(frozen=True)
class VariantOptions:
    """The resolved rules of one match.  Defaults are Truco Paulista's."""

    # -- cards ------------------------------------------------------------
    deck: str = _opt("dirty40", "deck: dirty40 (A-7, J Q K), clean27 (Mineiro clean deck), "
                     "clean24 (Q J K A 2 3), clean28 (A K Q J 7 3 2), spanish40, spanish48",
                     tuple(DECKS))
    joker: bool = _opt(False, "add a joker (JK) ranking between the lowest fixed manilha (7D) and the 3s")
    manilhas: str = _opt("vira", "fixed (4C 7H AS 7D, manilha velha), vira (rank above the turned card, "
                         "suits C>H>S>D) or bravas (Argentine 1E 1B 7E 7O)", ("fixed", "vira", "bravas"))
    # -- game -------------------------------------------------------------
    target: int = _opt(12, "points that win a game")
    games: int = _opt(1, "match length: best of N games (1 = a single game)")
    hand_points: int = _opt(1, "what a hand is worth without a bet")
    ladder: tuple[int, ...] = _opt((3, 6, 9, 12), "stakes proposed by successive truco raises")
    truco_on: str = _opt("hand", "what an accepted truco bets on: the hand, or the current trick (Mineiro)",
                         ("hand", "trick"))
    raise_on_turn: bool = _opt(True, "a new truco may only be called by the player whose turn it is to play")
    counter_raise: bool = _opt(True, "a raise while a truco is open accepts it and proposes the next step; "
                               "false: the raise is rejected until the bet is accepted")
    play_with_open_truco: bool = _opt(False, "cards may be played while a truco waits for its answer (Argentine)")
    raise_when_winning: str = _opt("allowed", "raising when accepting already wins the game: allowed, "
                                   "penalty (raise void, opponents score the penalty) or illegal (rejected)",
                                   ("allowed", "penalty", "illegal"))
    tie_lead: str = _opt("leader", "who leads after a tied trick: leader of the tied trick, first or last "
                         "of the tying cards", ("leader", "first", "last"))
    all_tied: str = _opt("nobody", "a fully tied hand: nobody scores, the mano's team wins, the dealer's "
                         "team wins, or the dealer's team loses the game",
                         ("nobody", "mano", "dealer", "dealer_loses_game"))
    tied_stake_carries: bool = _opt(False, "a fully tied hand that nobody scores passes a stake raised by truco "
                                    "on: the next hand starts at that stake (a Mineiro variation)")
    tied_same_dealer: bool = _opt(False, "after a fully tied hand that nobody scores the same player deals "
                                  "again (a Mineiro variation; the next `hand` listed by legal_events)")
    covered: bool = _opt(True, "cards may be played face down (never in the first trick, never win)")
    covered_per_team: int = _opt(1, "most face-down cards per team in one trick (0 = no limit)")
    covered_after_tie: bool = _opt(True, "face-down cards allowed in the trick after a tied trick")
    highest_after_tie: bool = _opt(False, "after a tied first trick everyone must play their highest card "
                                   "(face-down forbidden; a later stronger card is reported)")
    # -- special hands ------------------------------------------------------
    eleven_at: int = _opt(11, "score that makes a mão de onze / mão de dez (0 = no such hand)")
    eleven_stake: int = _opt(3, "stake when the team at eleven plays")
    eleven_run_points: int = _opt(1, "points the opponents score when the team at eleven runs")
    iron_hand: bool = _opt(True, "both teams at eleven: mão de ferro (blind, no truco, decides the game)")
    truco_at_eleven: str = _opt("lose_game", "truco called in a mão de onze / ferro: the caller's team loses "
                                "the game, loses the penalty points, or the call is rejected",
                                ("lose_game", "lose_point", "reject"))
    # -- irregularities -----------------------------------------------------
    penalty_points: int = _opt(1, "points of a standard penalty")
    penalty_rule: str = _opt("point", "a penalty event: point (opponents score the penalty; when a team is "
                             "at eleven the offender loses it instead) or game (offender loses the game)",
                             ("point", "game"))
    out_of_turn: str = _opt("reject", "a card played out of turn: reject the event or the offender's team "
                            "loses the game", ("reject", "lose_game"))
    # -- Argentine scoring --------------------------------------------------
    envido: bool = _opt(False, "envido, real envido and falta envido are played")
    flor: bool = _opt(False, "flor, contraflor and contraflor al resto are played")
    envido_points: int = _opt(2, "value of an envido bet")
    real_envido_points: int = _opt(3, "value of a real envido bet")
    flor_points: int = _opt(3, "points per announced flor")
    flor_achico_bonus: int = _opt(1, "con flor me achico: the other team scores its flores plus this")
    contraflor_points: int = _opt(6, "an accepted contraflor: the best flor takes this")
    contraflor_refused: int = _opt(4, "a refused contraflor (or contraflor al resto said over a plain flor)")
    contraflor_resto_per_flor: int = _opt(3, "contraflor al resto: points the leader needs plus this per flor")
    envido_scored: str = _opt("immediately", "envido and flor points are scored at once (a game can end "
                              "mid-hand) or at the end of the hand (a draw becomes possible)",
                              ("immediately", "end_of_hand"))
    fold_envido_point: bool = _opt(False, "folding before the first trick with no bet open while envido "
                                   "could still be called gives the opponents one extra point")
    six_players: str = _opt("redonda", "six players: redonda only, or alternate redonda and pica-pica",
                            ("redonda", "alternate"))
    pica_pica_until: int = _opt(25, "pica-pica deals stop once a team has this many points")
    malas_buenas: int = _opt(0, "show scores as malas/buenas with this many malas (0 = plain numbers)")

    @property
    def family(self) -> str:
        """The card family of the deck (``french`` or ``spanish``)."""
        return DECKS[self.deck]

    @property
    def uses_vira(self) -> bool:
        return self.manilhas == "vira"

    @property
    def deck_cards(self) -> list[str]:
        return list(_deck(self.deck, self.joker))

    @property
    def deck_set(self) -> frozenset[str]:
        """The deck as a set (cached: the engine checks cards against it on every deal)."""
        return _deck_set(self.deck, self.joker)

    @property
    def stakes(self) -> tuple[int, ...]:
        """Base value followed by every rung of the truco ladder."""
        return (self.hand_points, *self.ladder)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["ladder"] = list(self.ladder)
        return out


_MINEIRO: dict[str, Any] = dict(
    manilhas="fixed", truco_on="trick", raise_when_winning="penalty", tie_lead="first",
    covered_per_team=0, truco_at_eleven="lose_point",
)

PRESETS: dict[str, dict[str, Any]] = {
    # Truco Paulista: vira, bets on the hand, 1-3-6-9-12, one face-down card
    # per team per trick (minitruco manual), truco at eleven loses the game.
    "paulista": {},
    # Truco Mineiro: fixed manilhas, truco bets on the current trick.
    "mineiro": dict(_MINEIRO),
    # 2-point scoring (truco-two-point-scoring.txt): hand worth 2,
    # 2-4-6-10-12, mão de dez, truco at ten loses the game.
    "mineiro-2pt": dict(
        manilhas="fixed", tie_lead="first", covered_per_team=0, hand_points=2, ladder=(4, 6, 10, 12),
        eleven_at=10, eleven_stake=4, eleven_run_points=2, penalty_points=2,
    ),
    # 28-card game (A K Q J 7 3 2) with vira and strict penalties.
    "clean-28": dict(
        deck="clean28", covered=False, all_tied="dealer_loses_game", penalty_rule="game",
        out_of_turn="lose_game", highest_after_tie=True,
    ),
    # Argentine truco / Truco Gaúcho.
    "argentino": dict(
        deck="spanish40", manilhas="bravas", target=30, ladder=(2, 3, 4), raise_on_turn=False,
        play_with_open_truco=True, all_tied="mano", covered=False, covered_per_team=0,
        eleven_at=0, iron_hand=False, envido=True, flor=True, six_players="alternate",
        malas_buenas=15,
    ),
}

#: Names of the preset defaults, documented per preset by ``companion variants``.
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(VariantOptions))


class VariantError(ValueError):
    """Unknown preset, unknown option or a value of the wrong kind."""


def option_doc(name: str) -> str:
    for f in fields(VariantOptions):
        if f.name == name:
            return f.metadata.get("doc", "")
    raise VariantError(f"unknown option {name!r}")


def _coerce(name: str, value: Any, default: Any, choices: tuple[Any, ...] | None) -> Any:
    """Check (and gently convert) an override so the engine never sees a bad type."""
    if isinstance(default, bool):
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            value = value.lower() in ("true", "yes", "on", "1")
        if not isinstance(value, bool):
            raise VariantError(f"option {name} must be true or false, got {value!r}")
    elif isinstance(default, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise VariantError(f"option {name} must be an integer, got {value!r}")
        if value < 0:
            raise VariantError(f"option {name} must not be negative")
    elif isinstance(default, tuple):
        if isinstance(value, str):
            value = [v for v in value.replace("-", ",").split(",") if v.strip()]
        if not isinstance(value, (list, tuple)) or not value:
            raise VariantError(f"option {name} must be a list of integers, got {value!r}")
        try:
            value = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise VariantError(f"option {name} must be a list of integers, got {value!r}") from None
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise VariantError(f"option {name} must be a string, got {value!r}")
    if choices is not None and value not in choices:
        raise VariantError(f"option {name} must be one of {', '.join(map(str, choices))}; got {value!r}")
    return value


def resolve(variant: str, overrides: dict[str, Any] | None = None, target: int | None = None) -> VariantOptions:
    """Preset ``variant`` with ``overrides`` (the match line's ``options``) applied."""
    if not isinstance(variant, str) or variant not in PRESETS:
        raise VariantError(f"unknown variant {variant!r}; presets: {', '.join(PRESETS)}")
    values: dict[str, Any] = dict(PRESETS[variant])
    if overrides:
        if not isinstance(overrides, dict):
            raise VariantError("options must be an object of option: value")
        by_name = {f.name: f for f in fields(VariantOptions)}
        base = VariantOptions(**values)
        for name, value in overrides.items():
            if name not in by_name:
                raise VariantError(f"unknown option {name!r}; see `companion variants`")
            f = by_name[name]
            values[name] = _coerce(name, value, getattr(base, name), f.metadata.get("choices"))
    if target is not None:
        values["target"] = _coerce("target", target, 0, None)
    options = VariantOptions(**values)
    _validate(options)
    return options


def _validate(o: VariantOptions) -> None:
    """Reject combinations the engine cannot play consistently."""
    if o.target < 1:
        raise VariantError("target must be at least 1")
    if o.games < 1 or o.games % 2 == 0:
        raise VariantError("games must be an odd number (best of N)")
    if o.hand_points < 1:
        raise VariantError("hand_points must be at least 1")
    stakes = o.stakes
    if any(b <= a for a, b in zip(stakes, stakes[1:])):
        raise VariantError("the truco ladder must rise above hand_points at every step")
    family = o.family
    if o.manilhas == "bravas" and family != SPANISH:
        raise VariantError("cartas bravas need a Spanish deck")
    if o.manilhas in ("fixed", "vira") and family != FRENCH:
        raise VariantError("fixed or vira manilhas need a French-suited deck")
    if o.joker and (family != FRENCH or o.manilhas != "fixed"):
        raise VariantError("the joker is a fixed-manilha (Mineiro) option")
    if (o.envido or o.flor) and family != SPANISH:
        raise VariantError("envido and flor need a Spanish deck (they count card points)")
    if o.eleven_at and o.eleven_at >= o.target:
        raise VariantError("eleven_at must be below the target")


def preset_names() -> list[str]:
    return list(PRESETS)


def describe_presets() -> dict[str, VariantOptions]:
    """Every preset resolved, for ``companion variants`` and the README."""
    return {name: resolve(name) for name in PRESETS}
