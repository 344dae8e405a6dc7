"""The small puzzles the tests share, each declared once, under a name that says what it is.

A name ends in the grid size.  The figures in the comments (solutions, variables left
after propagation with no rules and with the default rules) are checked by
``test_the_shared_puzzles_are_what_their_names_say`` in ``test_puzzle.py``.  A puzzle only
one module uses stays in that module.
"""

# 4x4 (2x2 boxes), one-line strings

#: Unique; the singles solve it (7 variables with no rules, none with the default rules).
EASY4 = "12.434.2.1.3..21"
#: Three puzzles like :data:`EASY4`: unique, the singles solve each.
EASY4_SET = (EASY4, "1.3..41.21.3.3.1", "12..3.122..3.3.1")
#: A complete valid grid: nothing left to sample.
SOLVED4 = "1234341221434321"
#: One given: many solutions, 53 variables whatever the rules (the sampler runs).
ONE_GIVEN4 = "1..............."
#: Two givens: many solutions, 42 variables with no rules, 32 with the singles.
TWO_GIVENS4 = "1......2........"
#: Three givens: many solutions, 31 variables with no rules, 15 with the singles.
THREE_GIVENS4 = "1..." "..2." "...." "...4"
#: Four givens: unique; 20 variables with no rules, the singles solve it.
FOUR_GIVENS4 = "1..." "..2." ".3.." "...4"
#: The first box given: many solutions, 32 variables whatever the rules.
BOX_GIVEN4 = "12.." "34.." "...." "...."
#: Exactly two solutions (14 variables with no rules).
TWO_SOLUTIONS4 = "123." ".412" "..4." "..2."
#: Exactly two solutions: a 2x2 rectangle of 1s and 2s left open (8 variables).
OPEN_RECTANGLE4 = "..34" "3412" "..43" "4321"
#: Many solutions (42 variables with no rules, 32 with the singles).
MANY_SOLUTIONS4 = "1..." "..2." "...." "...."

# 9x9

#: seed004 of ``data/seeds/seeds.tsv``: unique, 189 variables with no rules, 63 with the
#: default rules (the sampler runs), and its solution.
SEED004 = "2.513...4....48........7.2..385...92....9.7........45.86.97....95.....31..4......"
SEED004_SOLUTION = "285139674673248519419657328738564192542391786196782453861973245957426831324815967"
#: seed001 and seed003 of ``data/seeds/seeds.tsv``.
SEED001 = "1..2..3...2..3..4...3..4..56..4..5...7..5..6...8..6..78..9..7...9..1..8...1..2..4"
SEED003 = "..8..1.......2..3.5.....4....76..5...1..3..............2.....1....5..7..6..4....."
#: forum_hardest_1106 #1: unique, no propagation rule fills a cell (248 variables with no
#: rules, 242 with the default ones), and its solution.
HARD9 = "........2..8.1.9..5....3.4....1.93...6..3..8...37......4......53.1.7.8..2........"
HARD9_SOLUTION = "639847512478512963512693748724189356965234187183765294847921635351476829296358471"
#: Unique; the singles solve it (153 variables with no rules).
EASY9 = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
#: Norvig's "impossible" puzzle: no unit repeats a given and the singles leave 356
#: variables, yet it has no solution.
IMPOSSIBLE9 = ".....5.8....6.1.43..........1.5........1.6...3.......553.....61........4........."
