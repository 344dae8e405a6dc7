"""The dwave-examples/sudoku formulation as a peer sampler: its own BQM, decoded against ours.

github.com/dwave-examples/sudoku builds the BQM over all ``n**3`` labels ``(r, c, d)``, one
``dimod.generators.combinations(labels, 1)`` (one-hot, strength 1) per cell and per
(row, digit), (column, digit) and (box, digit), and fixes each clue's label to 1 with
``bqm.fix_variable`` (the other labels of a clue cell stay variables, kept at 0 by the
penalties); it then samples that BQM (with a Leap hybrid solver there; here with
dwave-samplers' simulated annealing at its own defaults).

:class:`DwaveExamplesSampler` does exactly that for each call of the one engine
(``qsudoku bench --sampler benchmarks.dwave_examples:DwaveExamplesSampler``, run from the
repository's root): it lists ``puzzle`` in its ``parameters``, so the solve path passes it
the puzzle (:func:`qsudoku.solving.rounds.call_params`), builds its own BQM from the
puzzle's givens and units, samples it, and answers in the variables of qsudoku's reduced
QUBO (the BQM it was given): each read's grid, with the indicator of every reduced variable.
A read is valid only if it is a ground state of its own BQM (energy 0: a full grid that
keeps every clue); a read that is not, but whose projection onto the reduced variables
would be (its errors all in cells propagation fixed), is returned as all zeros, so no read
counts that its own formulation does not.  Energies are those of the given (reduced) BQM.
"""

from __future__ import annotations

import dimod
import numpy as np
from dimod.generators import combinations

__all__ = ["build_bqm", "DwaveExamplesSampler"]


def build_bqm(puzzle) -> dimod.BinaryQuadraticModel:
    """The dwave-examples BQM of ``puzzle`` (a :class:`qsudoku.Puzzle`): one-hot per cell
    and per unit and digit over all ``n**3`` labels ``(r, c, d)``, clues fixed to 1.

    >>> from qsudoku import parse_puzzle
    >>> bqm = build_bqm(parse_puzzle("1..." "..2." ".3.." "...4"))
    >>> bqm.num_variables, (0, 0, 1) in bqm.variables
    (60, False)
    """
    n = puzzle.size
    digits = range(1, n + 1)
    bqm = dimod.BinaryQuadraticModel(dimod.BINARY)
    for cell in range(n * n):
        r, c = divmod(cell, n)
        bqm.update(combinations([(r, c, d) for d in digits], 1))
    for unit in puzzle.units:  # rows, columns, boxes (and any region the variant has)
        for d in digits:
            bqm.update(combinations([(*divmod(cell, n), d) for cell in unit.cells], 1))
    for cell, d in enumerate(puzzle.givens):
        if d:
            bqm.fix_variable((*divmod(cell, n), d), 1)
    return bqm


class DwaveExamplesSampler(dimod.Sampler):
    """Simulated annealing (dwave-samplers, its own defaults) of the dwave-examples BQM of
    the puzzle, reads answered in the variables of the BQM given (see the module)."""

    parameters = {"puzzle": [], "num_reads": [], "seed": []}
    properties: dict = {}

    def sample(self, bqm, puzzle=None, num_reads: int = 10, seed: int | None = None,
               **kwargs) -> dimod.SampleSet:
        from dwave.samplers import SimulatedAnnealingSampler

        if puzzle is None:
            raise ValueError("DwaveExamplesSampler needs the puzzle (the solve path passes it)")
        n = puzzle.size
        own = build_bqm(puzzle)
        ss = SimulatedAnnealingSampler().sample(own, num_reads=num_reads, seed=seed)
        labels = list(bqm.variables)
        col = {v: i for i, v in enumerate(ss.variables)}
        givens = np.asarray(puzzle.givens)
        out = np.zeros((len(ss), len(labels)), np.int8)
        valid_own = np.isclose(ss.record.energy, 0.0)
        for k, row in enumerate(ss.record.sample):
            grid = givens.copy()
            for (r, c, d), i in col.items():
                if row[i] and grid[r * n + c] == 0:
                    grid[r * n + c] = d  # the first digit set (a broken cell: any of them)
            out[k] = [grid[r * n + c] == d for (r, c, d) in labels]
        energies = bqm.energies((out, labels))
        fake = ~valid_own & np.isclose(energies, 0.0)
        out[fake] = 0
        if fake.any():
            energies = bqm.energies((out, labels))
        return dimod.SampleSet.from_samples((out, labels), dimod.BINARY, energies,
                                            info={"own_num_variables": own.num_variables,
                                                  "own_valid": int(valid_own.sum())})
