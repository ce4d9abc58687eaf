"""Engine benchmark (not a test): random legal games, hands per CPU second on one core.

    nice -n 10 /work/venv/bin/python bench/engine.py [--seconds 10] [--profile]

Plays complete random games through ``companion.engine.simulate.Table`` (the
same legal-event driven playouts the property tests use: every step asks the
engine for the legal events, picks one with the simulator's weighted random
policy, fills in the card or points from the simulated hidden hands and
``apply``s it) and prints hands/s for 4-player Paulista and 4-player Argentine
truco with flor.  Seeds run 0, 1, 2, ... so every run (and every version of
the engine that behaves the same) plays the same games.

Then it replays the logs of those same games to split the CPU time:

- ``apply``: ``Game.apply`` alone (the "engine only" figure);
- ``legal_events()``: the public call, which hands out fresh dicts;
- ``listing``: the same listing without the defensive copies, which is what the
  simulator reads (it copies only the event it picks);
- ``simulator``: what remains of the playout time (policy, dealing, filling in
  cards, the log), reported as a share of the playout;
- ``undo``: one ``Game.undo()`` at random points of those games (it replays from
  the start of the current deal), next to what replaying the whole log costs.

All times are ``time.process_time()`` (CPU of this process), so other jobs on
the machine slow it down less than wall time would, but not to zero.
``--profile`` prints the top of a cProfile run for each case.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from typing import Any

from companion.engine import Game
from companion.engine.simulate import Table

CASES = [("paulista", 4, None, "4-player Paulista"),
         ("argentino", 4, {"flor": True}, "4-player Argentine with flor")]

Log = list[dict[str, Any]]


def run(variant: str, players: int, options: dict | None, seconds: float) -> tuple[int, int, float, list[Log]]:
    """Random legal playouts for ``seconds`` of CPU: hands, events, CPU seconds and the logs."""
    hands = events = 0
    seed = 0
    logs: list[Log] = []
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        table = Table(variant, players, seed, options)
        table.play_game()
        hands += table.hands_played
        events += len(table.log) - 1
        logs.append(table.log)
        seed += 1
    return hands, events, time.process_time() - cpu, logs


def replay(logs: list[Log], mode: str) -> float:
    """CPU seconds to replay ``logs``: ``apply`` alone, or preceded at every step by
    ``legal_events()`` (``legal``) or by the simulator's copy-free listing (``listing``)."""
    cpu = time.process_time()
    for log in logs:
        game = Game(log[0])
        apply = game.apply
        if mode == "apply":
            for event in log[1:]:
                apply(event)
            continue
        if mode == "legal" or not hasattr(game, "_legal"):  # (an engine without the copy-free listing)
            listing = game.legal_events
        else:
            listing = lambda: game._legal(False)  # noqa: E731
        for event in log[1:]:
            listing()
            apply(event)
        listing()
    return time.process_time() - cpu


def undo_cost(logs: list[Log], samples: int = 400) -> tuple[float, float]:
    """Mean CPU seconds of one ``undo()`` at random points, and of replaying the whole
    log up to that point (what an undo costs when it replays from the match line)."""
    rng = random.Random(1)
    undo_total = replay_total = 0.0
    games = [log for log in logs if len(log) > 2][:40] or logs
    for i in range(samples):
        log = games[i % len(games)]
        upto = rng.randint(2, len(log) - 1)
        game = Game(log[0])
        for event in log[1:upto]:
            game.apply(event)
        t = time.process_time()
        game.undo()
        undo_total += time.process_time() - t
        t = time.process_time()
        again = Game(log[0])
        for event in log[1:upto - 1]:
            again.apply(event)
        replay_total += time.process_time() - t
    return undo_total / samples, replay_total / samples


def cap(logs: list[Log], seconds: float, events_per_second: float) -> list[Log]:
    """The first logs, enough for about ``seconds`` of replay."""
    budget = seconds * events_per_second
    out: list[Log] = []
    count = 0
    for log in logs:
        if count > budget:
            break
        out.append(log)
        count += len(log) - 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU time of the playouts per case")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary per case")
    args = parser.parse_args()
    for variant, players, options, label in CASES:
        run(variant, players, options, 0.5)  # warm caches
        hands, events, elapsed, logs = run(variant, players, options, args.seconds)
        print(f"{label:32s} {hands / elapsed:9.0f} hands/s  ({events / elapsed:9.0f} events/s, "
              f"{hands} hands in {elapsed:.1f} s CPU)")
        sample = cap(logs, min(args.seconds, 3.0), events / elapsed)
        n_events = sum(len(log) - 1 for log in sample)
        n_hands = sum(sum(1 for e in log if e["type"] == "hand") for log in sample)
        steps = n_events + len(sample)  # legal events are asked once more at the end of each game
        t_apply = replay(sample, "apply")
        t_legal = replay(sample, "legal") - t_apply
        t_listing = replay(sample, "listing") - t_apply
        per_event = elapsed / events
        t_sim = per_event * n_events - t_apply - t_listing
        print(f"{'  engine only (replaying logs)':32s} {n_hands / t_apply:9.0f} hands/s  "
              f"({n_events / t_apply:9.0f} events/s)")
        print(f"    apply {t_apply / n_events * 1e6:5.2f} us/event, legal_events() {t_legal / steps * 1e6:5.2f} "
              f"us/call, listing without copies {t_listing / steps * 1e6:5.2f} us/call")
        print(f"    playout {per_event * 1e6:5.2f} us/event = apply {t_apply / (per_event * n_events):4.0%}"
              f" + listing {t_listing / (per_event * n_events):4.0%} + simulator {t_sim / (per_event * n_events):4.0%}")
        undo, full = undo_cost(sample)
        print(f"    undo {undo * 1e6:7.1f} us (replaying the log from the start: {full * 1e6:7.1f} us)")
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            run(variant, players, options, min(args.seconds, 5.0))
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
