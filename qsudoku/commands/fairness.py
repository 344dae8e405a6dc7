"""``qsudoku fairness``: how evenly a sampler's valid reads hit a puzzle's solutions."""

from __future__ import annotations

from qsudoku.experiments.fairness import (MAX_SOLUTIONS, SOLUTIONS_CAP, TIME_LIMIT,
                                          SolutionsError, check_counts, fairness)
from qsudoku.commands.common import (SecondsAction, add_config_args, add_input_args,
                                     add_options, config_from_args, error_reporter,
                                     iter_inputs, report)

#: Reads when ``--reads`` is not given.
DEFAULT_READS = 100


def register(sub) -> None:
    p = sub.add_parser(
        "fairness", help="how evenly a sampler's valid reads hit a puzzle's solutions",
        description="Enumerate each puzzle's solutions (exact search, up to --max-solutions), "
                    "take one fixed sample of --reads reads of the reduced QUBO with --sampler "
                    "(no rounds, no fallback; --sampler solve runs the default solve --reads "
                    "times instead), and report how many valid reads hit each solution, with "
                    "a chi-square test against uniform and its p-value. Exit 0 when every "
                    "puzzle got a valid read, 1 if some got none, 2 on bad input (also a "
                    "puzzle with more solutions than --max-solutions, or whose solutions "
                    "take longer than --time-budget to enumerate; --keep-going reports such "
                    "a puzzle, or an unreadable one, and goes on).")
    add_input_args(p)
    add_config_args(p)
    p.add_argument("--max-solutions", type=int, default=MAX_SOLUTIONS, metavar="K",
                   help=f"most solutions enumerated (default {MAX_SOLUTIONS}, at most "
                        f"{SOLUTIONS_CAP:,}); a puzzle with more is refused")
    p.add_argument("--time-budget", dest="time_limit", action=SecondsAction, default=TIME_LIMIT,
                   metavar="S",
                   help=f"seconds the enumeration of a puzzle's solutions may take (default "
                        f"{TIME_LIMIT:g}); a puzzle that needs longer is refused")
    add_options(p, "--json")
    p.set_defaults(run=run)


def run(args) -> int:
    backend = args.sampler
    if backend == "solve":
        args.sampler = None
    reads = DEFAULT_READS if args.reads is None else args.reads
    check_counts(reads, args.max_solutions, flags=True)
    cfg = config_from_args(args)
    on_error = error_reporter(args)  # --keep-going: said, counted in the exit code, skipped
    for puzzle in iter_inputs(args, on_error):
        try:
            f = fairness(puzzle, cfg, reads=reads, max_solutions=args.max_solutions,
                         seed=args.seed, sampler=backend, time_limit=args.time_limit)
        except SolutionsError as e:  # this puzzle, not the run
            if not args.keep_going:
                raise
            on_error(SolutionsError(f"{puzzle.name or 'puzzle'}: {e}"))
            continue
        report(args, {"name": puzzle.name, "puzzle": puzzle.format(), **f.to_dict(puzzle)},
               render(puzzle, f), 0 if f.num_valid else 1)
    return args.exit_so_far


def render(puzzle, f) -> str:
    """The report of one measurement, one line per solution."""
    s = "s" if f.num_solutions != 1 else ""
    lines = [f"{puzzle.name or 'puzzle'}  {puzzle.kind}  {f.num_solutions} solution{s}; "
             f"{f.sampler}: {f.num_reads} reads, {f.num_valid} valid (seed {f.seed})"]
    for k, (grid, n) in enumerate(zip(f.solutions, f.counts), 1):
        share = f"{n / f.num_valid:6.1%}" if f.num_valid else "     -"
        lines.append(f"  solution {k:>3}  {puzzle.format(grid)}  {n:>6}  {share}")
    if f.p_value is None:
        why = "one solution" if f.num_solutions < 2 else "no valid read"
        lines.append(f"  chi-square against uniform: not defined ({why})")
    else:
        lines.append(f"  chi-square against uniform: {f.chi2:.3f} ({f.num_solutions - 1} "
                     f"degrees of freedom), p = {f.p_value:.4g}")
    if f.note:
        lines.append(f"  note: {f.note}")
    return "\n".join(lines)
