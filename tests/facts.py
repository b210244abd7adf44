"""Published facts from docs/games.md, with their sources, as data."""

# The reversed paper's Table A.1 (Batterman et al. 2023): n -> (edges, vertices).
# The forward game has the same graph, so the same counts.
TABLE_A1 = {
    2: (1, 2), 3: (2, 3), 4: (4, 4), 5: (7, 6), 6: (11, 8), 7: (16, 10), 8: (24, 14), 9: (32, 17),
    10: (45, 22), 15: (158, 59), 20: (430, 134), 25: (990, 272), 30: (2043, 509), 35: (3881, 892),
    40: (6924, 1489),
}

# Lee and Bitler (2021): Player 2's winning lines in the forward game, A and B alternating.
LEE_BITLER_LINES = {
    4: [(4,), (2, 1), (1, 0, 1)],
    5: [(5,), (3, 1), (2, 0, 1), (0, 1, 1), (0, 0, 0, 1)],
    6: [(6,), (4, 1), (3, 0, 1), (1, 1, 1), (1, 0, 0, 1)],
    7: [(7,), (5, 1), (4, 0, 1), (2, 1, 1), (1, 0, 2), (2, 0, 0, 1), (0, 1, 0, 1)],
}

# The reversed paper's Theorem 1.6: winner from (a ones, b twos, c threes) by parities
# (a, b, c) with 0 = even, 1 = odd; a callable where the winner depends on a vs c.
THEOREM_1_6 = {
    (0, 0, 0): lambda a, c: 2,
    (1, 1, 1): lambda a, c: 1,
    (0, 1, 0): lambda a, c: 1,
    (1, 0, 1): lambda a, c: 1,
    (1, 0, 0): lambda a, c: 2 if a > c else 1,
    (0, 0, 1): lambda a, c: 1 if a > c else 2,
    (0, 1, 1): lambda a, c: 1,
    (1, 1, 0): lambda a, c: 1,
}
