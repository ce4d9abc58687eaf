"""Sentences of the rule texts that the engine tests encode.

Each test cites one of these in a comment.  ``test_quotes.py`` checks (only
where ../shared exists) that every sentence still appears in its text, so the
tests themselves run anywhere without reading ../shared.
"""

BR = "brazilian-truco-mineiro-paulista.txt"
AR = "argentine-truco.txt"
TWO = "truco-two-point-scoring.txt"
C28 = "truco-28-card-clean-deck.txt"
MANUAL = "minitruco-game-manual.txt"
README = "README.md"

QUOTES: dict[str, tuple[str, str]] = {
    # --- Brazilian (Mineiro / Paulista) ---
    "br_table_intro": (BR, "Because there are only three tricks, it is easy to list all the possible results."),
    "br_tie_first_wins": (BR, "When a trick is tied in this way, the hand is won by the first team that wins a trick."),
    "br_partners_equal": (BR, "In the unusual case where two partners play equal highest cards to a trick while "
                              "their opponents play lower (or face down) cards, the trick is not tied, but is won "
                              "by the team that played the highest cards."),
    "br_tie_lead_first": (BR, "The player who played the first of the cards that tied as the highest cards in the "
                              "trick plays the first card to the next trick."),
    "br_truco_corro": (BR, "For example after \"truco\" - \"vale 6\" - \"vale 9\" - \"corro\" the trucador's team "
                           "would take 6 tentos without play: after \"truco\" - \"vale 6\" - \"vale 9\" - \"aceito\" "
                           "the trick would be played for 9 tentos."),
    "br_truco_current_trick": (BR, "For example if team A wins the first trick, there is a truco in the second "
                                   "trick and team B win that trick, team B have won the hand, even though without "
                                   "the truco A might have won the third trick."),
    "br_truco_tie_before": (BR, "If any of the highest cards in the trick was played before the truco was said, "
                                "the team that bet or raised last loses the hand (even if they had previously won "
                                "a trick)."),
    "br_truco_tie_after": (BR, "If the highest cards were both (all) played after the truco, then the trick is "
                               "really tied and another trick is played to decide the result."),
    "br_truco_last_tie": (BR, "If the last trick is tied after a truco was accepted, the whole hand is tied and "
                              "neither team scores."),
    "br_raise_winning": (BR, "It is now illegal (as well as stupid) for team A to say \"vale 9\", because 6 points "
                             "are already sufficient to win the game for them."),
    "br_eleven": (BR, "They must then decide whether to play for 3 tentos or to run away, giving the losing team "
                      "1 tento."),
    "br_iron_tie": (BR, "If the hand is tied, another iron hand is played."),
    "br_penalty_eleven": (BR, "A team should not be able to win a game by means of such a penalty, so when either "
                              "team has a score of 11, the penalty of an irregularity is that the offending team "
                              "loses 1 tento."),
    "br_covered": (BR, "A card played face down can never win a trick, but a player may nevertheless choose to "
                       "play a card face down for tactical reasons."),
    "br_covered_first": (BR, "Cards cannot be played face down in the first trick."),
    "br_vira_jack": (BR, "Example: if the vira is a Jack, the cards rank from high to low:"),
    "br_vira_cycle": (BR, "For example if the vira is a Five, the manilhas are the Sixes, if the vira is a Seven "
                          "the manilhas are the Queens"),
    "br_paulista_tie_lead": (BR, "When a trick is tied, the same player who led to the tied trick leads to the "
                                 "next trick."),
    "br_paulista_eleven_truco": (BR, "When one or both of the teams has 11 points, calling truco automatically "
                                     "gives the victory to the opposing team"),
    "br_paulista_later_raise": (BR, "They can continue the play and interrupt it later to call vale 6, and the "
                                    "first team must reply before play continues again."),
    # --- minitruco manual ---
    "man_one_covered": (MANUAL, "It is only allowed one face-down card to be played by one's team in a round, "
                                "and the first round must be necessarily played with all cards face-up."),
    "man_six_refused": (MANUAL, "if the other team accepts this call, the team that wins this \"hand\" will score "
                                "6 points, otherwise, the team that called \"six\" wins the \"hand\" and scores "
                                "3 points."),
    "man_all_tied": (MANUAL, "If all three rounds get tied, no team wins the \"hand\"."),
    "man_old_manilha": (MANUAL, "the \"zap\" is the 4 of clubs, the \"escopeta\" is the 7 of hearts, the "
                                "\"espadilha\" is the A of spades and the \"pica-fumo\" is the 7 of diamonds."),
    # --- 2-point scoring ---
    "two_run_example": (TWO, "Example: the hand is worth 6 and a duo asks for 10. If the adversaries run, the ones "
                             "who asked for Ten will get 6 points (the actual hand value)."),
    "two_ladder": (TWO, "The bet can only be raised in the following order: 4, 6, 10 and 12."),
    "two_ten_truco": (TWO, "At the 10's Hand the players can't ask for Truco. If they do so, they automatically "
                           "loose the game."),
    "two_twice": (TWO, "A team can't ask for Truco twice in a row."),
    # --- 28-card ---
    "c28_queen": (C28, "If the face-up card is a queen, the jack becomes the manilha"),
    "c28_three": (C28, "If the face-up card is a three, the seven becomes the manilha"),
    "c28_two": (C28, "If the face-up card is a two, the three becomes the manilha"),
    "c28_all_tied": (C28, "If all three tricks result in ties, the dealer's partnership loses the game."),
    "c28_out_of_turn": (C28, "If a player lays down a card out of turn, that player's partnership loses the game."),
    "c28_accepting_team": (C28, "After a raise has been accepted, the accepting partnership retains the sole right "
                                "to counter-raise on a subsequent turn."),
    # --- Argentine ---
    "ar_envido_quiero": (AR, "Example: East: \"Envido\", North: \"Real envido\", West: \"Real Envido\", South: "
                             "\"Quiero\". Whoever has the best Envido, their team will win 8 points (2 + 3 + 3)."),
    "ar_envido_no_quiero": (AR, "Example: East: \"Envido\", North: \"Real envido\", West: \"Real Envido\", South: "
                                "\"No quiero\". East-West automatically win 5 points (2 + 3), as West's bet was "
                                "rejected."),
    "ar_falta": (AR, "If E-W say \"No quiero\" now, N-S will score 3 points and win, so the only sensible course "
                     "for E-W is to say \"Quiero\", and the winners of the Envido will score just one point."),
    "ar_declare": (AR, "Example: East is dealer and the Envido holdings are: North 28; West 26; South 31; East 31."),
    "ar_flor_three": (AR, "For example if North has a Flor 4-10-12, South has a Flor 2-3-10 and East has a Flor "
                          "1-3-5 then East's Flor wins"),
    "ar_contraflor_resto": (AR, "If the 6 malas team have the better Flor, they score the 7 points the leading "
                                "team needed for game plus 6 points for the two Flores, a total of 13 points, "
                                "bringing their score up to 4 buenas."),
    "ar_flor_cancels": (AR, "Here is an extreme example: East says \"Truco\", North says \"Falta envido\", West "
                            "says \"Quiero\", and South says \"Flor\"."),
    "ar_achico": (AR, "N-S score 4 points 3 for North's Flor and 1 for E-W's surrender"),
    "ar_flor_flor": (AR, "N-S score 6 points Only one team has Flores so no betting is possible."),
    "ar_override": (AR, "South's Flor announcement overrides North's surrender."),
    "ar_south_surrenders": (AR, "E-W score 4 points South surrenders on behalf of the partnership"),
    "ar_tie_lead": (AR, "East leads a king and North, West and South all play twos. The trick is tied and East "
                        "leads again."),
    "ar_all_tied": (AR, "If all three tricks are tied then the Truco is won by the team of the mano"),
    "ar_retruco_refused": (AR, "Their opponents can answer \"Quiero\" accepting that the Truco is worth 3, or \"No "
                               "Quiero\", in which case play ceases and the team which said \"Retruco\" scores 2."),
    "ar_vale_cuatro_refused": (AR, "or \"No Quiero\", in which case play ceases and the team which said \"Vale "
                                   "cuatro\" scores 3."),
    "ar_envido_first_trick": (AR, "You cannot make the first bet on the Envido after you have played your first "
                                  "card or after you have bet or accepted a bet on the Truco."),
    "ar_scored_first": (AR, "On each deal, the Flor or Envido is scored before the Truco, so if winning the Flor "
                            "or Envido takes a team to 15 buenas or beyond, that team automatically wins the game"),
    "ar_six": (AR, "When either team reaches 10 buenas (25 points) or more, only redonda is played"),
    "ar_bravas": (AR, "From high to low, these are the ace of swords, the ace of batons, the seven of swords and "
                      "the seven of coins."),
    # --- README gaps ---
    "rd_mineiro_order": (README, "**Mineiro ranking (full deck), high to low:**"),
    "rd_pica_pica": (README, "deals alternate between redonda (an ordinary"),
    "rd_contraflor_refused": (README, "A refused contraflor gives the raising team 4."),
}
