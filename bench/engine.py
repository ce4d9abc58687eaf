"""Engine benchmark (not a test): random legal games, hands per CPU second on one core.

    nice -n 10 /work/venv/bin/python bench/engine.py [--seconds 10] [--profile]

Plays complete random games through ``companion.engine.simulate.Table`` (the
same legal-event driven playouts the property tests use: every step asks the
engine for ``legal_events()``, picks one, fills in the card or points from the
simulated hidden hands and ``apply``s it) and prints hands/s for 4-player
Paulista and 4-player Argentine truco with flor; then the engine alone
(``Game.apply`` over pre-generated logs).  ``--profile`` prints the
top of a cProfile run for each.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from companion.engine import Game
from companion.engine.simulate import Table

CASES = [("paulista", 4, None, "4-player Paulista"),
         ("argentino", 4, {"flor": True}, "4-player Argentine with flor")]


def run(variant: str, players: int, options: dict | None, seconds: float) -> tuple[int, int, float]:
    hands = events = 0
    seed = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        table = Table(variant, players, seed, options)
        table.play_game()
        hands += table.hands_played
        events += len(table.log) - 1
        seed += 1
    return hands, events, time.process_time() - cpu


def replay(variant: str, players: int, options: dict | None, seconds: float) -> tuple[int, int, float]:
    """Engine alone: apply pre-generated legal logs (no legal_events, no random policy)."""
    logs = []
    seed = 10**6
    t0 = time.process_time()
    while time.process_time() - t0 < min(seconds, 3.0):
        logs.append(Table(variant, players, seed, options).play_game())
        seed += 1
    hands = events = 0
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        for log in logs:
            game = Game(log[0])
            apply = game.apply
            for event in log[1:]:
                apply(event)
            hands += game.hand_number
            events += len(log) - 1
    return hands, events, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per case")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary per case")
    args = parser.parse_args()
    for variant, players, options, label in CASES:
        run(variant, players, options, 0.5)  # warm caches
        hands, events, elapsed = run(variant, players, options, args.seconds)
        print(f"{label:32s} {hands / elapsed:9.0f} hands/s  ({events / elapsed:9.0f} events/s, "
              f"{hands} hands in {elapsed:.1f} s)")
        hands, events, elapsed = replay(variant, players, options, args.seconds)
        print(f"{'  engine only (replaying logs)':32s} {hands / elapsed:9.0f} hands/s  "
              f"({events / elapsed:9.0f} events/s)")
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            run(variant, players, options, min(args.seconds, 5.0))
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
